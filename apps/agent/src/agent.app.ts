import { createLogger, loadConfig, refuseUnsafeProduction } from '#common';
import { QueueGroups } from '#contracts';
import { type AppEntry, bootstrapService } from '#nats';
import { migrate } from '#persistence';

import { AgentConfig } from './agent.config.js';
import { agentDataSource } from './agent.data-source.js';

const agent = {
  name: 'agent',
  async migrate() {
    const config = loadConfig(AgentConfig);
    const logger = createLogger('agent');
    const applied = await migrate(agentDataSource(config.DATABASE_URL));
    logger.info({ applied }, 'agent migrations are up to date');
  },
  async start({ standalone }) {
    const config = loadConfig(AgentConfig);
    refuseUnsafeProduction('agent', config);
    // Imported here, not above, so that migrating loads none of the service.
    const { AgentModule } = await import('./agent.module.js');
    return bootstrapService(AgentModule.forRoot(config), {
      name: 'agent',
      queue: QueueGroups.agent,
      nats: config.natsEndpoint,
      healthPort: standalone ? config.HEALTH_PORT : undefined,
    });
  },
} satisfies AppEntry;

export default agent;
