import { createLogger } from '#common';
import { type AuditListRequest, EventsSubjects, type Principal } from '#contracts';
import { Handles } from '#nats';
import { AuditLog, auditRetentionProvider, InjectKysely } from '#persistence';
import { Controller } from '@nestjs/common';
import type { Kysely } from 'kysely';

import type { DB } from '../events.tables.js';

/** This service's audit log, `events.audit_entries` (docs/audit.md). */
export const audit = new AuditLog('events');

/** Answers the gateway's `GET /api/v1/audit` with this service's part, which it merges. */
@Controller()
export class EventsAuditHandler {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  @Handles(EventsSubjects.auditList)
  async list(request: AuditListRequest, principal: Principal) {
    return { data: await audit.list(this.db, principal.organizationId, request) };
  }
}

/** Deletes entries older than `AUDIT_RETENTION_DAYS`. */
export function eventsAuditRetention(retentionDays: number) {
  const logger = createLogger('events');
  return auditRetentionProvider(audit, retentionDays, (error) =>
    logger.warn({ err: error }, 'deleting expired audit entries failed; trying again'),
  );
}
