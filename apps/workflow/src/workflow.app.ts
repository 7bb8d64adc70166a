import { createLogger, loadConfig, refuseUnsafeProduction } from '#common';
import { QueueGroups } from '#contracts';
import { type AppEntry, bootstrapService } from '#nats';
import { migrate } from '#persistence';

import { WorkflowConfig } from './workflow.config.js';
import { workflowDataSource } from './workflow.database.js';

const workflow = {
  name: 'workflow',
  async migrate() {
    const config = loadConfig(WorkflowConfig);
    const logger = createLogger('workflow');
    const applied = await migrate(workflowDataSource(config.DATABASE_URL));
    logger.info({ applied }, 'workflow migrations are up to date');
  },
  async start({ standalone }) {
    const config = loadConfig(WorkflowConfig);
    refuseUnsafeProduction('workflow', config);
    // Imported here, not above, so that migrating loads none of the service.
    const { WorkflowModule } = await import('./workflow.module.js');
    return bootstrapService(WorkflowModule.forRoot(config), {
      name: 'workflow',
      queue: QueueGroups.workflow,
      nats: config.natsEndpoint,
      healthPort: standalone ? config.HEALTH_PORT : undefined,
    });
  },
} satisfies AppEntry;

export default workflow;
