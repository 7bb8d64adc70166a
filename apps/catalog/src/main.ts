import 'reflect-metadata';

import { startTracing } from '#common';

import catalog from './catalog.app.js';

// First, so that every span of the app has somewhere to go (docs/tracing.md).
await startTracing('catalog');
await catalog.start({ standalone: true });
