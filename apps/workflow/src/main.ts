import 'reflect-metadata';

import workflow from './workflow.app.js';

await workflow.start({ standalone: true });
