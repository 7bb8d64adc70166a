import 'reflect-metadata';

import catalog from './catalog.app.js';

await catalog.migrate();
