import 'reflect-metadata';

import catalog from './catalog.app.js';

await catalog.start({ standalone: true });
