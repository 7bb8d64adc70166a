import 'reflect-metadata';

import { startTracing } from '#common';

import database from './database.app.js';

// First, so that every span of the app has somewhere to go (docs/tracing.md).
await startTracing('database');
await database.start({ standalone: true });
