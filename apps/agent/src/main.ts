import 'reflect-metadata';

import { loadConfig } from '#common';
import { QueueGroups } from '#contracts';
import { bootstrapService } from '#nats';

import { AgentConfig } from './agent.config.js';
import { AgentModule } from './agent.module.js';

const config = loadConfig(AgentConfig);
await bootstrapService(AgentModule.forRoot(config), {
  name: 'agent',
  queue: QueueGroups.agent,
  nats: config.natsEndpoint,
  healthPort: config.HEALTH_PORT,
});
