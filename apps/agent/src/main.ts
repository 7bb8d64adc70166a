import 'reflect-metadata';

import { startTracing } from '#common';

import agent from './agent.app.js';

// First, so that every span of the app has somewhere to go (docs/tracing.md).
await startTracing('agent');
await agent.start({ standalone: true });
