import 'reflect-metadata';

import agent from './agent.app.js';

await agent.migrate();
