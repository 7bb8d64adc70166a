import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

import { DomainException } from '#common';
import { newId } from '#persistence';

import { type BatchLimits, BatchRunner, type BatchStatement, type StorageBudget } from './batch-runner.js';
import { DatabaseFiles } from './database-files.js';
import { DatabaseFileMissingError } from './engine.errors.js';
import { OpenDatabases } from './open-databases.js';
import { PathScrubber } from './path-scrubber.js';

const ORG = 'org_test';
const MiB = 1024 * 1024;
/** Hours of CPU and next to no memory (a small right side): ends only when interrupted. */
const ENDLESS = 'SELECT count(*) FROM range(10000000000) a, range(100) b WHERE a.range + b.range = -1';
/** About 4 MB in the file: four columns of hashes, which DuckDB cannot compress. */
const FOUR_MB =
  'SELECT hash(range) a, hash(range + 1) b, hash(range + 2) c, hash(range + 3) d FROM range(125000)';

describe('the engine', () => {
  let dataDir: string;
  let files: DatabaseFiles;
  let engine: OpenDatabases;
  let stored: Map<string, number>;

  const room = (roomBytes: number): StorageBudget => ({ roomBytes, limit: roomBytes, scope: 'database' });

  const limits = (overrides: Partial<BatchLimits> = {}): BatchLimits => ({
    statementTimeoutMs: 10_000,
    deadline: Date.now() + 20_000,
    resultLimitBytes: 1024 * 1024,
    replyLimitBytes: Number.POSITIVE_INFINITY,
    storageBudget: () => Promise.resolve(room(1024 * MiB)),
    ...overrides,
  });

  async function outcome(id: string, statements: BatchStatement[], overrides?: Partial<BatchLimits>) {
    const lease = await engine.lease(ORG, id);
    try {
      return await new BatchRunner(lease, statements, limits(overrides), {
        scrubber: new PathScrubber(files.root, homedir()),
        pendingBoundBytes: 128 * MiB + 16 * MiB,
      }).run();
    } finally {
      lease.release();
    }
  }

  async function run(id: string, statements: BatchStatement[], overrides?: Partial<BatchLimits>) {
    const { body } = await outcome(id, statements, overrides);
    return (JSON.parse(body) as { results: Array<{ rows: unknown[][] }> }).results.map(
      (result) => result.rows,
    );
  }

  async function failure(id: string, statements: BatchStatement[], overrides?: Partial<BatchLimits>) {
    try {
      await run(id, statements, overrides);
    } catch (error) {
      if (error instanceof DomainException)
        return { code: error.code, details: error.details, message: error.message };
      throw error;
    }
    throw new Error('the batch succeeded');
  }

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'flowmesh-engine-'));
    files = new DatabaseFiles(dataDir);
    await files.prepare();
    stored = new Map();
    engine = new OpenDatabases(
      files,
      { threads: 1, memoryLimit: '128MB', spillLimit: '16MB', maxOpen: 2, idleCloseMs: 1000 },
      () => undefined,
      (databaseId, bytes) => stored.set(databaseId, bytes),
    );
  });

  afterEach(async () => {
    await engine.drain(1000);
    await engine.closeAll();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps no more than maxOpen databases open, and their data across a close', async () => {
    const ids = [newId(), newId(), newId()];
    for (const id of ids) {
      await engine.create(ORG, id);
      await run(id, [
        { sql: 'CREATE TABLE t (v VARCHAR)' },
        { sql: 'INSERT INTO t VALUES (?)', params: [id] },
      ]);
    }
    expect(engine.openCount).toBeLessThanOrEqual(2);
    for (const id of ids) expect(await run(id, [{ sql: 'SELECT v FROM t' }])).toEqual([[[id]]]);
  });

  it('never creates a missing file on use', async () => {
    await expect(engine.lease(ORG, newId())).rejects.toBeInstanceOf(DatabaseFileMissingError);
  });

  it('serializes writers, so concurrent read-modify-write batches lose nothing', async () => {
    const id = newId();
    await engine.create(ORG, id);
    await run(id, [{ sql: 'CREATE TABLE c (n INTEGER)' }, { sql: 'INSERT INTO c VALUES (0)' }]);
    await Promise.all(
      Array.from({ length: 20 }, () =>
        run(id, [{ sql: 'SELECT n FROM c' }, { sql: 'UPDATE c SET n = n + 1' }]),
      ),
    );
    expect(await run(id, [{ sql: 'SELECT n FROM c' }])).toEqual([[[20]]]);
  });

  it('binds params by their JSON type', async () => {
    const id = newId();
    await engine.create(ORG, id);
    expect(
      await run(id, [
        {
          sql: 'SELECT ? AS a, ? + 1 AS b, ? + 1 AS c, ? * 2 AS d, ?::DATE AS e, ? AS f, octet_length(?) AS g',
          params: ['text', 41, 4_000_000_000, 1.25, '2024-02-29', true, { blob: 'AAEC' }],
        },
      ]),
    ).toEqual([[['text', 42, '4000000001', 2.5, '2024-02-29', true, '3']]]);
  });

  it('runs a SELECT that writes again as a writer', async () => {
    const id = newId();
    await engine.create(ORG, id);
    await run(id, [{ sql: 'CREATE SEQUENCE s' }]);
    expect(await run(id, [{ sql: "SELECT nextval('s')" }, { sql: "SELECT nextval('s')" }])).toEqual([
      [['1']],
      [['2']],
    ]);
  });

  it('answers database_not_found to a batch whose database is dropped while it runs', async () => {
    const id = newId();
    await engine.create(ORG, id);
    const running = failure(id, [{ sql: ENDLESS }]);
    // The drop waits for the batch, interrupting it until it has let go.
    await new Promise((resolve) => setImmediate(resolve));
    await engine.drop(ORG, id);
    expect((await running).code).toBe('database_not_found');
    expect(files.exists(ORG, id)).toBe(false);
  });

  it('stops a statement at its time limit and rolls back what the batch did', async () => {
    const id = newId();
    await engine.create(ORG, id);
    await run(id, [{ sql: 'CREATE TABLE t (n INTEGER)' }]);
    const error = await failure(id, [{ sql: 'INSERT INTO t VALUES (1)' }, { sql: ENDLESS }], {
      statementTimeoutMs: 200,
    });
    expect(error).toMatchObject({ code: 'internal', details: { statementIndex: 1 } });
    expect(await run(id, [{ sql: 'SELECT count(*) FROM t' }])).toEqual([[['0']]]);
  });

  it('stops the running statement when its run is cancelled, and keeps nothing of the batch', async () => {
    const id = newId();
    await engine.create(ORG, id);
    await run(id, [{ sql: 'CREATE TABLE t (n BIGINT)' }]);
    const lease = await engine.lease(ORG, id);
    let interrupts = 0;
    const connect = lease.connect.bind(lease);
    lease.connect = async () => {
      const connection = await connect();
      const interrupt = connection.interrupt.bind(connection);
      connection.interrupt = () => {
        interrupts += 1;
        interrupt();
      };
      return connection;
    };
    const cancel = new AbortController();
    const statements = [{ sql: 'INSERT INTO t VALUES (1)' }, { sql: `INSERT INTO t ${ENDLESS}` }];
    const context = { scrubber: new PathScrubber(files.root, homedir()), pendingBoundBytes: 144 * MiB };
    const batch = new BatchRunner(
      lease,
      statements,
      limits({ statementTimeoutMs: 60_000 }),
      context,
      cancel.signal,
    )
      .run()
      .finally(() => lease.release());
    // The first statement takes a few milliseconds; the second runs for hours unless interrupted.
    const abortAt = await new Promise<number>((resolve) =>
      setTimeout(() => {
        cancel.abort(DomainException.runCancelled('Cancelled by ada@example.com: wrong input.'));
        resolve(performance.now());
      }, 300),
    );
    const error = await batch.then(
      () => null,
      (thrown: unknown) => thrown,
    );
    const stoppedMs = performance.now() - abortAt;
    expect(error).toBeInstanceOf(DomainException);
    expect({ code: (error as DomainException).code, message: (error as DomainException).message }).toEqual({
      code: 'run_not_active',
      message: 'Cancelled by ada@example.com: wrong input.',
    });
    expect(interrupts).toBeGreaterThan(0);
    expect(stoppedMs).toBeLessThan(2_000);
    expect(await run(id, [{ sql: 'SELECT count(*) FROM t' }])).toEqual([[['0']]]);
  });

  it('does not start a batch whose run was cancelled before it reached the engine', async () => {
    const id = newId();
    await engine.create(ORG, id);
    await run(id, [{ sql: 'CREATE TABLE t (n INTEGER)' }]);
    const lease = await engine.lease(ORG, id);
    try {
      const cancelled = AbortSignal.abort(DomainException.runCancelled('Cancelled.'));
      const context = { scrubber: new PathScrubber(files.root, homedir()), pendingBoundBytes: 144 * MiB };
      await expect(
        new BatchRunner(lease, [{ sql: 'INSERT INTO t VALUES (1)' }], limits(), context, cancelled).run(),
      ).rejects.toMatchObject({ code: 'run_not_active', message: 'Cancelled.' });
    } finally {
      lease.release();
    }
    expect(await run(id, [{ sql: 'SELECT count(*) FROM t' }])).toEqual([[['0']]]);
  });

  it('rolls back when the answer would not fit the channel', async () => {
    const id = newId();
    await engine.create(ORG, id);
    await run(id, [{ sql: 'CREATE TABLE t (n INTEGER)' }]);
    const error = await failure(
      id,
      [{ sql: 'INSERT INTO t VALUES (1)' }, { sql: "SELECT repeat('x', 100) FROM range(100)" }],
      { replyLimitBytes: 5000 },
    );
    expect(error.code).toBe('result_too_large');
    expect(await run(id, [{ sql: 'SELECT count(*) FROM t' }])).toEqual([[['0']]]);
  });

  it('caps what one database may spill to disk', async () => {
    const id = newId();
    await engine.create(ORG, id);
    const spilled = await failure(id, [
      {
        sql: `SELECT sum(a) FROM (SELECT hash(range) a, hash(range + 1) b, hash(range + 2) c, hash(range + 3) d
                FROM range(10000000) ORDER BY a DESC OFFSET 1)`,
      },
    ]);
    expect(spilled).toMatchObject({ code: 'query_failed', details: { statementIndex: 0 } });
    expect(spilled.message).toMatch(/max_temp_directory_size/);
  });

  describe('storage', () => {
    it('measures what a writing batch leaves, and what a database holds when it opens and closes', async () => {
      const id = newId();
      await engine.create(ORG, id);
      expect(stored.get(id)).toBeLessThan(64 * 1024);
      const written = await outcome(id, [{ sql: `CREATE TABLE t AS ${FOUR_MB}` }]);
      expect(written.storedBytes).toBeGreaterThan(3 * MiB);
      expect((await outcome(id, [{ sql: 'SELECT count(*) FROM t' }])).storedBytes).toBeNull();
      await engine.drain(1000);
      await engine.closeAll();
      expect(stored.get(id)).toBeGreaterThan(3 * MiB);
    });

    it('rolls back, before COMMIT, a batch that would pass the room, and keeps nothing of it', async () => {
      const id = newId();
      await engine.create(ORG, id);
      await run(id, [{ sql: 'CREATE TABLE kept (n INTEGER)' }]);
      const refused = await failure(
        id,
        [{ sql: 'INSERT INTO kept VALUES (1)' }, { sql: `CREATE TABLE big AS ${FOUR_MB}` }],
        { storageBudget: () => Promise.resolve(room(2 * MiB)) },
      );
      expect(refused).toMatchObject({
        code: 'plan_limit_reached',
        details: { resource: 'storage', limit: 2 * MiB, scope: 'database' },
      });
      expect(await run(id, [{ sql: 'SELECT count(*) FROM kept' }])).toEqual([[['0']]]);
      expect(
        await run(id, [{ sql: "SELECT count(*) FROM information_schema.tables WHERE table_name = 'big'" }]),
      ).toEqual([[['0']]]);
      // Small inserts stay in memory until COMMIT: they count too.
      const small = await failure(id, [{ sql: 'INSERT INTO kept SELECT range FROM range(100000)' }], {
        storageBudget: () => Promise.resolve(room(64 * 1024)),
      });
      expect(small.code).toBe('plan_limit_reached');
    });

    it('stops a statement whose writes grow the file past the room while it runs', async () => {
      const id = newId();
      await engine.create(ORG, id);
      const started = Date.now();
      const refused = await failure(
        id,
        [{ sql: 'CREATE TABLE endless AS SELECT hash(range) a, hash(range + 1) b FROM range(1000000000)' }],
        { storageBudget: () => Promise.resolve(room(8 * MiB)) },
      );
      expect(refused.code).toBe('plan_limit_reached');
      expect(refused.message).toMatch(/Statement 0 wrote past/);
      expect(Date.now() - started).toBeLessThan(10_000);
      // The file grew a little past the room before the statement stopped, nowhere near 16 GB.
      expect(statSync(files.pathOf(ORG, id)).size).toBeLessThan(200 * MiB);
      expect(await run(id, [{ sql: 'SELECT 1' }])).toEqual([[[1]]]);
    });

    it('lets a database at its limit read and delete, but not write, until it is under', async () => {
      const id = newId();
      await engine.create(ORG, id);
      await run(id, [{ sql: `CREATE TABLE t AS ${FOUR_MB}` }, { sql: 'CREATE TABLE u (n INTEGER)' }]);
      const tight = { storageBudget: () => Promise.resolve(room(MiB)) };
      const write = await failure(id, [{ sql: 'SELECT 1' }, { sql: 'INSERT INTO u VALUES (1)' }], tight);
      expect(write).toMatchObject({ code: 'plan_limit_reached', details: { resource: 'storage' } });
      expect(write.message).toMatch(/only batches that read or delete/);
      expect(write.message).toMatch(/Statement 1 would write/);
      expect(await run(id, [{ sql: 'SELECT count(*) FROM t' }], tight)).toEqual([[['125000']]]);
      // Deleting makes room: it runs, and the database is checkpointed so the room shows at once.
      const deleted = await outcome(id, [{ sql: 'DROP TABLE t' }], tight);
      expect(deleted.storedBytes).toBeLessThan(MiB);
      expect(await run(id, [{ sql: 'INSERT INTO u VALUES (1)' }], tight)).toEqual([[]]);
    });

    it('does not run a writing batch whose budget cannot be read', async () => {
      const id = newId();
      await engine.create(ORG, id);
      const unknown = await failure(id, [{ sql: 'CREATE TABLE t (n INTEGER)' }], {
        storageBudget: () => Promise.reject(new Error('catalog is down')),
      });
      expect(unknown.code).toBe('service_unavailable');
      expect(
        await run(id, [{ sql: 'SELECT 1' }], { storageBudget: () => Promise.reject(new Error('down')) }),
      ).toEqual([[[1]]]);
    });
  });
});
