import 'reflect-metadata';

import { startTracing } from '#common';

import workflow from './workflow.app.js';

// First, so that every span of the app has somewhere to go (docs/tracing.md).
await startTracing('workflow');
await workflow.start({ standalone: true });
