import { kyselyOnPool } from '#persistence';
import { Inject } from '@nestjs/common';
import type { Kysely } from 'kysely';
import type pg from 'pg';

import type { DB } from '../catalog.tables.js';

/** The Nest token of the typed query builder on better-auth's pool. */
export const AUTH_DB = Symbol('AUTH_DB');

/** Injects the `Kysely<DB>` that reads and writes better-auth's `auth.*` tables. */
export const InjectAuthDb = (): ParameterDecorator => Inject(AUTH_DB);

/**
 * Catalog's own queries of better-auth's tables run on the pool better-auth uses, typed by the same
 * generated `DB` as catalog's tables (whose `auth.*` keys name the schema, whatever the pool's
 * search_path). Never `destroy()` it: that would end better-auth's pool, which `AuthService` ends on
 * shutdown.
 */
export function authDatabase(pool: pg.Pool): Kysely<DB> {
  return kyselyOnPool<DB>(pool);
}
