import 'reflect-metadata';

import { loadConfig } from '#common';
import { QueueGroups } from '#contracts';
import { bootstrapService } from '#nats';

import { WorkflowConfig } from './workflow.config.js';
import { WorkflowModule } from './workflow.module.js';

const config = loadConfig(WorkflowConfig);
await bootstrapService(WorkflowModule.forRoot(config), {
  name: 'workflow',
  queue: QueueGroups.workflow,
  nats: config.natsEndpoint,
  healthPort: config.HEALTH_PORT,
});
