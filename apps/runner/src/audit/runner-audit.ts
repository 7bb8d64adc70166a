import { createLogger } from '#common';
import { type AuditListRequest, RunnerSubjects, type Principal } from '#contracts';
import { Handles } from '#nats';
import { AuditLog, auditRetentionProvider, InjectKysely } from '#persistence';
import { Controller } from '@nestjs/common';
import type { Kysely } from 'kysely';

import type { DB } from '../runner.tables.js';

/** This service's audit log, `runner.audit_entries` (docs/audit.md). */
export const audit = new AuditLog('runner');

/** Answers the gateway's `GET /api/v1/audit` with this service's part, which it merges. */
@Controller()
export class RunnerAuditHandler {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  @Handles(RunnerSubjects.auditList)
  async list(request: AuditListRequest, principal: Principal) {
    return { data: await audit.list(this.db, principal.organizationId, request) };
  }
}

/** Deletes entries older than `AUDIT_RETENTION_DAYS`. */
export function runnerAuditRetention(retentionDays: number) {
  const logger = createLogger('runner');
  return auditRetentionProvider(audit, retentionDays, (error) =>
    logger.warn({ err: error }, 'deleting expired audit entries failed; trying again'),
  );
}
