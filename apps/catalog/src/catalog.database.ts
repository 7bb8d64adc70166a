import type { ServiceDataSourceOptions } from '#persistence';

import { CatalogInitial1763712000000 } from './migrations/1763712000000-catalog-initial.js';
import { ProjectCounts1763715600000 } from './migrations/1763715600000-project-counts.js';
import { ProjectDeletion1764400000000 } from './migrations/1764400000000-project-deletion.js';
import { RunDays1764900000000 } from './migrations/1764900000000-run-days.js';
import { AuditEntries1765300000000 } from './migrations/1765300000000-audit-entries.js';
import { RetentionSettings1765710000000 } from './migrations/1765710000000-retention-settings.js';

export function catalogDataSource(url: string): ServiceDataSourceOptions {
  return {
    url,
    schema: 'catalog',
    entities: [],
    migrations: [
      CatalogInitial1763712000000,
      ProjectCounts1763715600000,
      ProjectDeletion1764400000000,
      RunDays1764900000000,
      AuditEntries1765300000000,
      RetentionSettings1765710000000,
    ],
  };
}
