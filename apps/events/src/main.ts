import 'reflect-metadata';

import events from './events.app.js';

await events.start({ standalone: true });
