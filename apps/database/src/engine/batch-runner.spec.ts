import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DomainException } from '#common';
import { newId } from '#persistence';
import { pino } from 'pino';

import { type BatchLimits, BatchRunner, type BatchStatement } from './batch-runner.js';
import { DatabaseFiles } from './database-files.js';
import { DatabaseFileMissingError, OpenDatabases } from './open-databases.js';

const ORG = 'org_test';

describe('the engine', () => {
  let dataDir: string;
  let files: DatabaseFiles;
  let engine: OpenDatabases;

  const limits = (overrides: Partial<BatchLimits> = {}): BatchLimits => ({
    statementTimeoutMs: 10_000,
    deadline: Date.now() + 20_000,
    resultLimitBytes: 1024 * 1024,
    replyLimitBytes: Number.POSITIVE_INFINITY,
    ...overrides,
  });

  async function run(id: string, statements: BatchStatement[], overrides?: Partial<BatchLimits>) {
    const lease = await engine.lease(ORG, id);
    try {
      const text = await new BatchRunner(lease, statements, limits(overrides)).run();
      return (JSON.parse(text) as { results: Array<{ rows: unknown[][] }> }).results.map(
        (result) => result.rows,
      );
    } finally {
      lease.release();
    }
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
    engine = new OpenDatabases(
      files,
      { threads: 1, memoryLimit: '128MB', maxOpen: 2, idleCloseMs: 1000 },
      pino({ level: 'silent' }),
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
    const running = failure(id, [
      { sql: 'SELECT count(*) FROM range(100000000) a, range(100000000) b WHERE a.range * b.range = 7' },
    ]);
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
    const error = await failure(
      id,
      [
        { sql: 'INSERT INTO t VALUES (1)' },
        { sql: 'SELECT count(*) FROM range(100000000) a, range(100000000) b WHERE a.range * b.range = 7' },
      ],
      { statementTimeoutMs: 200 },
    );
    expect(error).toMatchObject({ code: 'internal', details: { statementIndex: 1 } });
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
});
