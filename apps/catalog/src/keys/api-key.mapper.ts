import type { Selectable } from 'kysely';

import type { AuthApikey } from '../catalog.tables.js';

/** An organization key as its owners see it: never the key itself, which better-auth keeps hashed. */
export interface ApiKeyRecord {
  id: string;
  name: string | null;
  /** The key's first characters, to tell keys apart. */
  start: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export const API_KEY_COLUMNS = ['id', 'name', 'start', 'createdAt', 'lastRequest'] as const;

export type ApiKeyRow = Pick<Selectable<AuthApikey>, (typeof API_KEY_COLUMNS)[number]>;

export function toApiKeyRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    start: row.start,
    createdAt: row.createdAt,
    lastUsedAt: row.lastRequest,
  };
}
