import { createLogger, loadConfig, refuseUnsafeProduction } from '#common';
import { QueueGroups } from '#contracts';
import { type AppEntry, bootstrapService } from '#nats';
import { migrate } from '#persistence';

import { CredentialCipher } from './connections/credential-cipher.js';
import { EventsConfig } from './events.config.js';
import { eventsDataSource } from './events.data-source.js';

const events = {
  name: 'events',
  async migrate() {
    const config = loadConfig(EventsConfig);
    const logger = createLogger('events');
    const cipher = CredentialCipher.fromEnvironment(config.CONNECTIONS_ENCRYPTION_KEY);
    const applied = await migrate(eventsDataSource(config.DATABASE_URL, cipher));
    logger.info({ applied }, 'events migrations are up to date');
  },
  async start({ standalone }) {
    const config = loadConfig(EventsConfig);
    refuseUnsafeProduction('events', config);
    // Imported here, not above, so that migrating loads none of the service.
    const { EventsModule } = await import('./events.module.js');
    return bootstrapService(EventsModule.forRoot(config), {
      name: 'events',
      queue: QueueGroups.events,
      nats: config.natsEndpoint,
      healthPort: standalone ? config.HEALTH_PORT : undefined,
    });
  },
} satisfies AppEntry;

export default events;
