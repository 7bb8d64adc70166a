import type { ApiKeyDto } from '#contracts';
import { Inject, Injectable } from '@nestjs/common';
import type pg from 'pg';

import { AUTH_POOL } from '../auth/auth.service.js';

interface ApiKeyRow {
  id: string;
  name: string | null;
  start: string | null;
  createdAt: Date;
  lastRequest: Date | null;
}

const toDto = (row: ApiKeyRow): ApiKeyDto => ({
  id: row.id,
  name: row.name,
  start: row.start,
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: row.lastRequest ? row.lastRequest.toISOString() : null,
});

/**
 * Reads and removes organization keys in better-auth's `apikey` table (catalog's `auth` schema);
 * keys are made through better-auth itself, which hashes them.
 */
@Injectable()
export class ApiKeyRepository {
  constructor(@Inject(AUTH_POOL) private readonly pool: pg.Pool) {}

  async list(organizationId: string): Promise<ApiKeyDto[]> {
    const { rows } = await this.pool.query<ApiKeyRow>(
      `SELECT id, name, start, "createdAt", "lastRequest" FROM apikey
        WHERE "referenceId" = $1 ORDER BY "createdAt" DESC, id DESC`,
      [organizationId],
    );
    return rows.map(toDto);
  }

  async get(organizationId: string, id: string): Promise<ApiKeyDto | null> {
    const { rows } = await this.pool.query<ApiKeyRow>(
      `SELECT id, name, start, "createdAt", "lastRequest" FROM apikey WHERE id = $1 AND "referenceId" = $2`,
      [id, organizationId],
    );
    return rows[0] ? toDto(rows[0]) : null;
  }

  /** The organization's first owner, on whose behalf keys are made (better-auth wants an owning member). */
  async firstOwner(organizationId: string): Promise<string | null> {
    const { rows } = await this.pool.query<{ userId: string }>(
      `SELECT "userId" FROM member WHERE "organizationId" = $1 AND role = 'owner' ORDER BY "createdAt" LIMIT 1`,
      [organizationId],
    );
    return rows[0]?.userId ?? null;
  }

  /** Whether a key of this organization was removed. */
  async delete(organizationId: string, id: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('DELETE FROM apikey WHERE id = $1 AND "referenceId" = $2', [
      id,
      organizationId,
    ]);
    return (rowCount ?? 0) > 0;
  }
}
