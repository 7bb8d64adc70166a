import 'reflect-metadata';

import { startTracing } from '#common';

import runner from './runner.app.js';

// First, so that every span of the app has somewhere to go (docs/tracing.md).
await startTracing('runner');
await runner.start({ standalone: true });
