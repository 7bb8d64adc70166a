import type { ServiceDataSourceOptions } from '#persistence';

import { WorkflowInitial1763800000000 } from './migrations/1763800000000-workflow-initial.js';
import { WorkflowDeletion1764400000000 } from './migrations/1764400000000-workflow-deletion.js';
import { ScheduleClaims1764500000000 } from './migrations/1764500000000-schedule-claims.js';
import { AuditEntries1765300000000 } from './migrations/1765300000000-audit-entries.js';

export function workflowDataSource(url: string): ServiceDataSourceOptions {
  return {
    url,
    schema: 'workflow',
    entities: [],
    migrations: [
      WorkflowInitial1763800000000,
      WorkflowDeletion1764400000000,
      ScheduleClaims1764500000000,
      AuditEntries1765300000000,
    ],
  };
}
