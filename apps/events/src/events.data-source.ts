import type { ServiceDataSourceOptions } from '#persistence';

import { AppEventEntity } from './events/app-event.entity.js';
import { ConnectionEntity } from './connections/connection.entity.js';
import { EventsInitial1764500000000 } from './migrations/1764500000000-events-initial.js';

export function eventsDataSource(url: string, poolSize?: number): ServiceDataSourceOptions {
  return {
    url,
    schema: 'events',
    entities: [ConnectionEntity, AppEventEntity],
    migrations: [EventsInitial1764500000000],
    ...(poolSize === undefined ? {} : { poolSize }),
  };
}
