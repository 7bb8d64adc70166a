import 'reflect-metadata';

import { loadConfig } from '#common';
import { QueueGroups } from '#contracts';
import { bootstrapService } from '#nats';

import { EventsConfig } from './events.config.js';
import { EventsModule } from './events.module.js';

const config = loadConfig(EventsConfig);
await bootstrapService(EventsModule.forRoot(config), {
  name: 'events',
  queue: QueueGroups.events,
  nats: config.natsEndpoint,
  healthPort: config.HEALTH_PORT,
});
