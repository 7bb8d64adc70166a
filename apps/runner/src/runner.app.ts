import { createLogger, loadConfig, refuseUnsafeProduction } from '#common';
import { QueueGroups } from '#contracts';
import { type AppEntry, bootstrapService } from '#nats';
import { migrate } from '#persistence';

import { RunnerConfig } from './runner.config.js';
import { runnerDataSource } from './runner.database.js';

const runner = {
  name: 'runner',
  async migrate() {
    const config = loadConfig(RunnerConfig);
    const logger = createLogger('runner');
    const applied = await migrate(runnerDataSource(config.DATABASE_URL));
    logger.info({ applied }, 'runner migrations are up to date');
  },
  async start({ standalone }) {
    const config = loadConfig(RunnerConfig);
    refuseUnsafeProduction('runner', config);
    // Imported here, not above, so that migrating loads none of the service.
    const { RunnerModule } = await import('./runner.module.js');
    return bootstrapService(RunnerModule.forRoot(config), {
      name: 'runner',
      queue: QueueGroups.runner,
      nats: config.natsEndpoint,
      healthPort: standalone ? config.HEALTH_PORT : undefined,
    });
  },
} satisfies AppEntry;

export default runner;
