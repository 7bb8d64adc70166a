import { PeriodicTask } from '#common';
import type { FactoryProvider } from '@nestjs/common';
import type { QueryExecutorProvider } from 'kysely';

import { KYSELY } from '../kysely.js';

import type { AuditLog } from './audit-log.js';

/** Entries one delete removes: small enough that no statement holds many locks for long. */
const BATCH = 1_000;
/** How often a replica looks for expired entries. */
export const AUDIT_RETENTION_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Deletes a service's audit entries older than `AUDIT_RETENTION_DAYS`, in batches, hourly. Every
 * replica runs it; two deleting at once only share the work.
 */
export class AuditRetention {
  private readonly task: PeriodicTask;

  constructor(
    private readonly log: AuditLog,
    private readonly db: QueryExecutorProvider,
    private readonly retentionDays: number,
    onError: (error: unknown) => void,
    intervalMs = AUDIT_RETENTION_INTERVAL_MS,
  ) {
    this.task = new PeriodicTask(intervalMs, () => this.sweep().then(() => undefined), onError);
  }

  onApplicationBootstrap(): void {
    this.task.start();
    // The first sweep now, rather than an interval after start.
    this.task.kick();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** Deletes every expired entry, a batch at a time; answers how many. */
  async sweep(): Promise<number> {
    let deleted = 0;
    for (;;) {
      const count = await this.log.deleteExpired(this.db, this.retentionDays, BATCH);
      deleted += count;
      if (count < BATCH) return deleted;
    }
  }
}

/**
 * The retention task of a service's audit log as a Nest provider: started when the app is, stopped
 * before its database closes.
 */
export function auditRetentionProvider(
  log: AuditLog,
  retentionDays: number,
  onError: (error: unknown) => void,
): FactoryProvider {
  return {
    provide: AuditRetention,
    inject: [KYSELY],
    useFactory: (db: QueryExecutorProvider) => new AuditRetention(log, db, retentionDays, onError),
  };
}
