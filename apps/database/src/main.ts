import './uv-threadpool.js';
import 'reflect-metadata';

import { loadConfig } from '#common';
import { QueueGroups } from '#contracts';
import { bootstrapService } from '#nats';

import { DatabaseConfig } from './database.config.js';
import { DatabaseModule } from './database.module.js';

const config = loadConfig(DatabaseConfig);
await bootstrapService(DatabaseModule.forRoot(config), {
  name: 'database',
  queue: QueueGroups.database,
  nats: config.natsEndpoint,
  healthPort: config.HEALTH_PORT,
});
