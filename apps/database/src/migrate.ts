import 'reflect-metadata';

import { createLogger, loadConfig } from '#common';
import { migrate } from '#persistence';

import { DatabaseConfig } from './database.config.js';
import { databaseDataSource } from './database.data-source.js';

const config = loadConfig(DatabaseConfig);
const logger = createLogger('database');
const applied = await migrate(databaseDataSource(config.DATABASE_URL));
logger.info({ applied }, 'database migrations are up to date');
