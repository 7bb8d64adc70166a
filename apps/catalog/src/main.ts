import 'reflect-metadata';

import { loadConfig } from '#common';
import { QueueGroups } from '#contracts';
import { bootstrapService } from '#nats';

import { CatalogConfig } from './catalog.config.js';
import { CatalogModule } from './catalog.module.js';

const config = loadConfig(CatalogConfig);
await bootstrapService(CatalogModule.forRoot(config), {
  name: 'catalog',
  queue: QueueGroups.catalog,
  nats: config.natsEndpoint,
  healthPort: config.HEALTH_PORT,
});
