import 'reflect-metadata';

import events from './events.app.js';

await events.migrate();
