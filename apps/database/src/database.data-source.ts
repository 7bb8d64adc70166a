import type { ServiceDataSourceOptions } from '#persistence';

import { DatabaseInitial1764100000000 } from './migrations/1764100000000-database-initial.js';
import { DatabaseShards1764200000000 } from './migrations/1764200000000-database-shards.js';
import { DatabaseStorage1764600000000 } from './migrations/1764600000000-database-storage.js';
import { AuditEntries1765300000000 } from './migrations/1765300000000-audit-entries.js';

export function databaseDataSource(url: string): ServiceDataSourceOptions {
  return {
    url,
    schema: 'database',
    entities: [],
    migrations: [
      DatabaseInitial1764100000000,
      DatabaseShards1764200000000,
      DatabaseStorage1764600000000,
      AuditEntries1765300000000,
    ],
  };
}
