import type { ServiceDataSourceOptions } from '#persistence';

import { RunnerInitial1764000000000 } from './migrations/1764000000000-runner-initial.js';
import { IdempotencyFingerprint1764300000000 } from './migrations/1764300000000-idempotency-fingerprint.js';
import { TerminatedWorkflows1764400000000 } from './migrations/1764400000000-terminated-workflows.js';
import { DashboardIndexes1764900000000 } from './migrations/1764900000000-dashboard-indexes.js';
import { RunControl1765000000000 } from './migrations/1765000000000-run-control.js';
import { RunListIndexes1765100000000 } from './migrations/1765100000000-run-list-indexes.js';
import { Operations1765100100000 } from './migrations/1765100100000-operations.js';
import { RunTraceParent1765200300000 } from './migrations/1765200300000-run-trace-parent.js';
import { PausedRunsIndex1765250000000 } from './migrations/1765250000000-paused-runs-index.js';
import { AuditEntries1765300000000 } from './migrations/1765300000000-audit-entries.js';
import { RunEndings1765390000000 } from './migrations/1765390000000-run-endings.js';
import { ChildRuns1765400000000 } from './migrations/1765400000000-child-runs.js';
import { ErrorWorkflows1765430000000 } from './migrations/1765430000000-error-workflows.js';
import { FlowControl1765500000000 } from './migrations/1765500000000-flow-control.js';
import { BacklogNotices1765600000000 } from './migrations/1765600000000-backlog-notices.js';
import { Retention1765710000000 } from './migrations/1765710000000-retention.js';
import { ScheduledRuns1765720000000 } from './migrations/1765720000000-scheduled-runs.js';

export function runnerDataSource(url: string, poolSize?: number): ServiceDataSourceOptions {
  return {
    url,
    schema: 'runner',
    entities: [],
    migrations: [
      RunnerInitial1764000000000,
      IdempotencyFingerprint1764300000000,
      TerminatedWorkflows1764400000000,
      DashboardIndexes1764900000000,
      RunControl1765000000000,
      RunListIndexes1765100000000,
      Operations1765100100000,
      RunTraceParent1765200300000,
      PausedRunsIndex1765250000000,
      AuditEntries1765300000000,
      RunEndings1765390000000,
      ChildRuns1765400000000,
      ErrorWorkflows1765430000000,
      FlowControl1765500000000,
      BacklogNotices1765600000000,
      Retention1765710000000,
      ScheduledRuns1765720000000,
    ],
    ...(poolSize === undefined ? {} : { poolSize }),
  };
}
