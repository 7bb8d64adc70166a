import 'reflect-metadata';

import { loadConfig } from '#common';
import { QueueGroups } from '#contracts';
import { bootstrapService } from '#nats';

import { RunnerConfig } from './runner.config.js';
import { RunnerModule } from './runner.module.js';

const config = loadConfig(RunnerConfig);
await bootstrapService(RunnerModule.forRoot(config), {
  name: 'runner',
  queue: QueueGroups.runner,
  nats: config.natsEndpoint,
  healthPort: config.HEALTH_PORT,
});
