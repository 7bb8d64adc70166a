import type { AuditCaller } from '#persistence';
import { Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';

import { audit } from '../audit/catalog-audit.js';
import { InjectAuthDb } from '../auth/auth.database.js';
import type { DB } from '../catalog.tables.js';
import { API_KEY_COLUMNS, type ApiKeyRecord, toApiKeyRecord } from './api-key.mapper.js';

/**
 * Reads and removes organization keys in better-auth's `apikey` table (catalog's `auth` schema);
 * keys are made through better-auth itself, which hashes them.
 */
@Injectable()
export class ApiKeyRepository {
  constructor(@InjectAuthDb() private readonly db: Kysely<DB>) {}

  async list(organizationId: string): Promise<ApiKeyRecord[]> {
    const rows = await this.db
      .selectFrom('auth.apikey')
      .select(API_KEY_COLUMNS)
      .where('referenceId', '=', organizationId)
      .orderBy('createdAt', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toApiKeyRecord);
  }

  async get(organizationId: string, id: string): Promise<ApiKeyRecord | null> {
    const row = await this.db
      .selectFrom('auth.apikey')
      .select(API_KEY_COLUMNS)
      .where('id', '=', id)
      .where('referenceId', '=', organizationId)
      .executeTakeFirst();
    return row ? toApiKeyRecord(row) : null;
  }

  /** Whether a key of this organization was removed. */
  async delete(organizationId: string, id: string, caller: AuditCaller): Promise<boolean> {
    const deleted = await audit.recording(
      this.db,
      caller,
      (trx) =>
        trx
          .deleteFrom('auth.apikey')
          .where('id', '=', id)
          .where('referenceId', '=', organizationId)
          .returning(['id', 'name'])
          .executeTakeFirst(),
      (key) => ({ action: 'key.deleted', resource: { type: 'key', id: key.id, name: key.name } }),
    );
    return deleted !== undefined;
  }

  /**
   * Records a key better-auth made. Not in the transaction of the change, which better-auth commits
   * on its own: the one audit write that follows its change (docs/audit.md).
   */
  async recordCreated(caller: AuditCaller, key: { id: string; name: string | null }): Promise<void> {
    await audit.record(this.db, caller, {
      action: 'key.created',
      resource: { type: 'key', id: key.id, name: key.name },
    });
  }
}
