import 'reflect-metadata';

import { createLogger, loadConfig } from '#common';

import { launch } from './launcher.js';
import { LauncherConfig } from './launcher.config.js';

const logger = createLogger('flowmesh');
try {
  await launch(loadConfig(LauncherConfig), logger);
} catch (error) {
  logger.fatal({ err: error }, 'Flowmesh failed to start');
  process.exit(1);
}
