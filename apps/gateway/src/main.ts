import 'reflect-metadata';

import { startTracing } from '#common';

import gateway from './gateway.app.js';

// First, so that every span of the app has somewhere to go (docs/tracing.md).
await startTracing('gateway');
await gateway.start({ standalone: true });
