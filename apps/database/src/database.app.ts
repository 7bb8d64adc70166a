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
    if (!process.env.UV_THREADPOOL_SIZE) {
      // libuv sized its pool before this code ran, so only the environment can set it (deploy/Dockerfile).
      createLogger('database').warn(
        'UV_THREADPOOL_SIZE is not set: DuckDB shares 4 threads, so a fifth concurrent query waits. Set it to 16.',
      );
    }
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
