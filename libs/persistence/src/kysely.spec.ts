import { scratchDatabase, waitFor } from '#testing';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { DataSource } from 'typeorm';

import { dataSourceOptions } from './data-source.factory.js';
import { kyselyOn, kyselyOnPool } from './kysely.js';

/**
 * Postgres ending a connection that Kysely holds (a restart, a failover, an operator's
 * pg_terminate_backend) fails that query and nothing else: before, the client's unheard 'error'
 * event ended the whole process.
 */
const database = scratchDatabase('fm_kysely_spec');

/** Ends the backend `pid` as a Postgres restart would, and waits until it is gone. */
async function terminate(admin: pg.Pool, pid: number): Promise<void> {
  await admin.query('SELECT pg_terminate_backend($1)', [pid]);
  for (;;) {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid]);
    if (rowCount === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The backend running the test's `pg_sleep`, once it runs. */
async function sleeper(admin: pg.Pool): Promise<number> {
  for (;;) {
    const { rows } = await admin.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'SELECT pg_sleep%'",
    );
    if (rows[0]) return rows[0].pid;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const backendPid = (db: Kysely<unknown>) =>
  sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db).then(({ rows }) => rows[0]!.pid);

/**
 * The pool's next query, once it has dropped the ended connection: the FATAL message fails the query
 * before the socket closes, so the very next query may still draw that connection and fail with it.
 */
const recovered = (db: Kysely<unknown>) =>
  waitFor(() => backendPid(db), { timeoutMs: 5_000, what: 'a query on a new connection' });

describe('Kysely on a pg pool', () => {
  let admin: pg.Pool;

  beforeAll(async () => {
    await database.create();
    admin = new pg.Pool({ connectionString: database.url, max: 1 });
    admin.on('error', (error) => console.error('admin pool', error));
  });

  afterAll(async () => {
    await admin?.end();
    await database.drop();
  });

  it("fails only the transaction whose connection Postgres ended, on TypeORM's pool", async () => {
    const dataSource = new DataSource(
      dataSourceOptions({ url: database.url, schema: 'public', entities: [], migrations: [], poolSize: 2 }),
    );
    await dataSource.initialize();
    try {
      const db = kyselyOn<unknown>(dataSource);
      const transaction = db.transaction().execute(async (trx) => {
        await terminate(admin, await backendPid(trx));
        return backendPid(trx);
      });
      // As the socket closes: Postgres' notice, pg's "Connection terminated", or the reset itself.
      await expect(transaction).rejects.toThrow(/terminat|not queryable|ECONNRESET/);
      expect(await recovered(db)).toEqual(expect.any(Number));
    } finally {
      await dataSource.destroy();
    }
  });

  it('fails only the query in flight when Postgres ends its connection, on a pool of its own', async () => {
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    pool.on('error', () => undefined);
    try {
      const db = kyselyOnPool<unknown>(pool);
      const sleeping = sql`SELECT pg_sleep(30)`.execute(db);
      sleeping.catch(() => undefined);
      const pid = await sleeper(admin);
      await terminate(admin, pid);
      await expect(sleeping).rejects.toThrow(/terminat|ECONNRESET/);
      expect(await recovered(db)).not.toBe(pid);
    } finally {
      await pool.end();
    }
  });
});
