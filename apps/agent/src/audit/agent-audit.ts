import { createLogger } from '#common';
import { type AuditListRequest, AgentSubjects, type Principal } from '#contracts';
import { Handles } from '#nats';
import { AuditLog, auditRetentionProvider, InjectKysely } from '#persistence';
import { Controller } from '@nestjs/common';
import type { Kysely } from 'kysely';

import type { DB } from '../agent.tables.js';

/** This service's audit log, `agent.audit_entries` (docs/audit.md). */
export const audit = new AuditLog('agent');

/** Answers the gateway's `GET /api/v1/audit` with this service's part, which it merges. */
@Controller()
export class AgentAuditHandler {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  @Handles(AgentSubjects.auditList)
  async list(request: AuditListRequest, principal: Principal) {
    return { data: await audit.list(this.db, principal.organizationId, request) };
  }
}

/** Deletes entries older than `AUDIT_RETENTION_DAYS`. */
export function agentAuditRetention(retentionDays: number) {
  const logger = createLogger('agent');
  return auditRetentionProvider(audit, retentionDays, (error) =>
    logger.warn({ err: error }, 'deleting expired audit entries failed; trying again'),
  );
}
