import { createLogger } from '#common';
import { type AuditListRequest, CatalogSubjects, type Principal } from '#contracts';
import { Handles } from '#nats';
import { AuditLog, auditRetentionProvider, InjectKysely } from '#persistence';
import { Controller } from '@nestjs/common';
import type { Kysely } from 'kysely';

import type { DB } from '../catalog.tables.js';

/** This service's audit log, `catalog.audit_entries` (docs/audit.md). */
export const audit = new AuditLog('catalog');

/** Answers the gateway's `GET /api/v1/audit` with this service's part, which it merges. */
@Controller()
export class CatalogAuditHandler {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  @Handles(CatalogSubjects.auditList)
  async list(request: AuditListRequest, principal: Principal) {
    return { data: await audit.list(this.db, principal.organizationId, request) };
  }
}

/** Deletes entries older than `AUDIT_RETENTION_DAYS`. */
export function catalogAuditRetention(retentionDays: number) {
  const logger = createLogger('catalog');
  return auditRetentionProvider(audit, retentionDays, (error) =>
    logger.warn({ err: error }, 'deleting expired audit entries failed; trying again'),
  );
}
