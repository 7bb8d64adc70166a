import 'reflect-metadata';

import { startTracing } from '#common';

import events from './events.app.js';

// First, so that every span of the app has somewhere to go (docs/tracing.md).
await startTracing('events');
await events.start({ standalone: true });
