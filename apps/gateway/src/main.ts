import 'reflect-metadata';

import gateway from './gateway.app.js';

await gateway.start({ standalone: true });
