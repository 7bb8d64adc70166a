import 'reflect-metadata';

import { createLogger, loadConfig, startTracing } from '#common';

import { launch } from './launcher.js';
import { LauncherConfig } from './launcher.config.js';

const logger = createLogger('flowmesh');
try {
  // First: one tracer for every app of the process, each span naming its service (docs/tracing.md).
  const tracing = await startTracing('flowmesh');
  await launch(loadConfig(LauncherConfig), logger, tracing.shutdown);
} catch (error) {
  logger.fatal({ err: error }, 'Flowmesh failed to start');
  process.exit(1);
}
