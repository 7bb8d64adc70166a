import type { ServiceDataSourceOptions } from '#persistence';

import { AgentInitial1764600000000 } from './migrations/1764600000000-agent-initial.js';
import { Threads1764700000000 } from './migrations/1764700000000-threads.js';
import { Approvals1764800000000 } from './migrations/1764800000000-approvals.js';
import { ModelUsage1764900000000 } from './migrations/1764900000000-model-usage.js';
import { AuditEntries1765300000000 } from './migrations/1765300000000-audit-entries.js';
import { Assistant1765700000000 } from './migrations/1765700000000-assistant.js';

export function agentDataSource(url: string): ServiceDataSourceOptions {
  return {
    url,
    schema: 'agent',
    entities: [],
    migrations: [
      AgentInitial1764600000000,
      Threads1764700000000,
      Approvals1764800000000,
      ModelUsage1764900000000,
      AuditEntries1765300000000,
      Assistant1765700000000,
    ],
  };
}
