import { createLogger, loadConfig, refuseUnsafeProduction } from '#common';
import { QueueGroups } from '#contracts';
import { type AppEntry, bootstrapService } from '#nats';
import { migrate } from '#persistence';

import { authSettings, migrateAuth } from './auth/auth.factory.js';
import { CatalogConfig } from './catalog.config.js';
import { catalogDataSource } from './catalog.database.js';

const catalog = {
  name: 'catalog',
  async migrate() {
    const config = loadConfig(CatalogConfig);
    const logger = createLogger('catalog');
    const applied = await migrate(catalogDataSource(config.DATABASE_URL));
    await migrateAuth(authSettings(config), logger);
    logger.info({ applied }, 'catalog migrations are up to date');
  },
  async start({ standalone }) {
    const config = loadConfig(CatalogConfig);
    refuseUnsafeProduction('catalog', config);
    // Imported here, not above, so that migrating loads none of the service.
    const { CatalogModule } = await import('./catalog.module.js');
    return bootstrapService(CatalogModule.forRoot(config), {
      name: 'catalog',
      queue: QueueGroups.catalog,
      nats: config.natsEndpoint,
      healthPort: standalone ? config.HEALTH_PORT : undefined,
    });
  },
} satisfies AppEntry;

export default catalog;
