import 'reflect-metadata';

import { createLogger, loadConfig } from '#common';
import { migrate } from '#persistence';

import { migrateAuth } from './auth/auth.factory.js';
import { CatalogConfig } from './catalog.config.js';
import { catalogDataSource } from './catalog.database.js';

const config = loadConfig(CatalogConfig);
const logger = createLogger('catalog');
const applied = await migrate(catalogDataSource(config.DATABASE_URL));
await migrateAuth(
  { databaseUrl: config.DATABASE_URL, secret: config.AUTH_SECRET, publicUrl: config.PUBLIC_URL },
  logger,
);
logger.info({ applied }, 'catalog migrations are up to date');
