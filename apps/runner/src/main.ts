import 'reflect-metadata';

import runner from './runner.app.js';

await runner.start({ standalone: true });
