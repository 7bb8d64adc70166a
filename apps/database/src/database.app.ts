import { createLogger, loadConfig, refuseUnsafeProduction } from '#common';
import { QueueGroups } from '#contracts';
import { type AppEntry, bootstrapService } from '#nats';
import { migrate } from '#persistence';

import { DatabaseConfig } from './database.config.js';
import { databaseDataSource } from './database.data-source.js';

const database = {
  name: 'database',
  async migrate() {
    const config = loadConfig(DatabaseConfig);
    const logger = createLogger('database');
    const applied = await migrate(databaseDataSource(config.DATABASE_URL));
    logger.info({ applied }, 'database migrations are up to date');
  },
  async start({ standalone }) {
    const config = loadConfig(DatabaseConfig);
    refuseUnsafeProduction('database', config);
    // Imported here, not above, so that migrating loads none of the service.
    const { DatabaseModule } = await import('./database.module.js');
    return bootstrapService(DatabaseModule.forRoot(config), {
      name: 'database',
      queue: QueueGroups.database,
      nats: config.natsEndpoint,
      healthPort: standalone ? config.HEALTH_PORT : undefined,
    });
  },
} satisfies AppEntry;

export default database;
