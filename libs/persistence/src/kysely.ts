import { Inject } from '@nestjs/common';
import { type Compilable, Kysely, PostgresDialect, type PostgresPool } from 'kysely';
import type { Pool, PoolClient } from 'pg';
import type { DataSource } from 'typeorm';

/** The Nest token of a service's typed query builder (`Kysely<DB>` over the service's tables). */
export const KYSELY = Symbol('Kysely');

/** Injects the service's `Kysely<DB>`, typed by its generated `<service>.tables.ts`. */
export const InjectKysely = (): ParameterDecorator => Inject(KYSELY);

const pools = new WeakMap<object, () => Pool>();

/** TypeORM's Postgres driver keeps its pg pool as `master`, typed `any`: the one place that reads it. */
function poolOf(dataSource: DataSource): Pool {
  return (dataSource.driver as unknown as { master: Pool }).master;
}

const listening = new WeakSet<PoolClient>();

/**
 * A pg client emits 'error' when Postgres ends its connection (a restart, a failover), and an
 * 'error' nobody listens for ends the process. The pool listens only while a client is idle, and
 * Kysely's driver adds no listener to the client it checks out for a query or a transaction: a
 * Postgres restart then stopped every service that had a Kysely query in flight. Here every client
 * Kysely checks out listens; the query itself still fails with the error, and the pool drops the
 * broken client when it comes back.
 */
function listeningPool(pool: () => Pool): PostgresPool {
  return {
    async connect() {
      const client = await pool().connect();
      if (!listening.has(client)) {
        listening.add(client);
        client.on('error', () => undefined);
      }
      return client;
    },
    end: () => pool().end(),
  };
}

/** A typed query builder on a pg pool of one's own (better-auth's, for catalog). */
export function kyselyOnPool<DB>(pool: Pool): Kysely<DB> {
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool: listeningPool(() => pool) }) });
}

/**
 * A typed query builder on the pool TypeORM's data source already manages: one pool per service, the
 * migrations and the health check stay TypeORM's. Never `destroy()` it: that would end TypeORM's pool,
 * which the data source ends on shutdown.
 */
export function kyselyOn<DB>(dataSource: DataSource): Kysely<DB> {
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({ pool: listeningPool(() => poolOf(dataSource)) }),
  });
  pools.set(db, () => poolOf(dataSource));
  return db;
}

/**
 * The rows of a hot read, run as a named prepared statement: Postgres parses and plans it once per
 * connection rather than on every call. The statement is still built and typed by Kysely; `name` must
 * be unique per statement text across the service. Outside a transaction only (a transaction's
 * `Kysely` has no pool of its own, and the statement then runs unprepared on it).
 */
export async function preparedQuery<DB, O>(db: Kysely<DB>, name: string, query: Compilable<O>): Promise<O[]> {
  const compiled = query.compile();
  const pool = pools.get(db as Kysely<unknown>);
  if (!pool) return (await db.executeQuery(compiled)).rows;
  const result = await pool().query({ name, text: compiled.sql, values: [...compiled.parameters] });
  return result.rows as O[];
}
