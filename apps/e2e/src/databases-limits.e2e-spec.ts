import {
  cpuTicksOf,
  createDatabaseIn,
  createOrganization,
  engineWorkerOf,
  isRunning,
  type OrganizationFixture,
  peakRssBytesOf,
  queryDatabase,
  rowsOf,
  type ServiceProcess,
  type Statement,
  TestStack,
  waitFor,
} from '#testing';

/**
 * The query limits and the bounds on one tenant (docs/databases.md, "Bounds"), lowered by
 * configuration, and deaths in the middle of a batch. These need a database service of their own:
 * two processes must never open the same files, and the shared stack keeps the contract's limits for
 * every other test. So this file runs catalog, database and a gateway on their own Postgres database,
 * NATS server and data directory.
 */
const MiB = 1024 * 1024;
const STATEMENT_TIMEOUT_MS = 500;
const RESULT_LIMIT_BYTES = 64 * 1024;
const WORKER_MEMORY_BYTES = 768 * MiB;

/** Hours of CPU and next to no memory (a small right side): ends only when interrupted. */
const ENDLESS_SQL = 'SELECT count(*) FROM range(10000000000) a, range(100) b WHERE a.range + b.range = -1';
/** About 2 s of one core: long enough to be caught running, short enough to wait for. */
const BUSY_SQL = 'SELECT count(*) FROM range(6000000) a, range(100) b WHERE a.range + b.range = -1';

describe('database limits', () => {
  let stack: TestStack;
  let org: OrganizationFixture;
  let id: string;

  const query = (statements: Statement[], as = org, database = id) =>
    queryDatabase(as.api, database, statements);
  const rows = (statements: Statement[], as = org, database = id) => rowsOf(as.api, database, statements);

  beforeAll(async () => {
    stack = await TestStack.start(
      {
        QUERY_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
        RESULT_LIMIT_BYTES: String(RESULT_LIMIT_BYTES),
        DUCKDB_MEMORY_LIMIT: '64MB',
        DUCKDB_SPILL_LIMIT: '16MB',
        DUCKDB_WORKER_MEMORY_LIMIT: `${WORKER_MEMORY_BYTES / MiB}MiB`,
        MAX_OPEN_DATABASES: '8',
        BATCHES_PER_ORGANIZATION: '2',
        BATCHES_WAITING_PER_ORGANIZATION: '1',
      },
      { services: ['catalog', 'database'] },
    );
    org = await createOrganization(stack.description);
    id = await createDatabaseIn(org.api, 'limits');
    await rows([{ sql: 'CREATE TABLE t (n INTEGER)' }]);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('stops a statement past the time limit, rolls the batch back and answers 500', async () => {
    const started = Date.now();
    const answer = await query([
      { sql: 'INSERT INTO t VALUES (1)' },
      { sql: 'SELECT count(*) FROM range(1000000) a, range(1000000) b WHERE a.range * b.range = 7' },
      { sql: 'INSERT INTO t VALUES (2)' },
    ]);
    expect(answer.response.status).toBe(500);
    expect(answer.error?.error).toEqual({
      code: 'internal',
      message: expect.stringContaining(`${STATEMENT_TIMEOUT_MS} ms`),
      details: { statementIndex: 1 },
    });
    // Stopped promptly rather than left to finish.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await rows([{ sql: 'SELECT count(*) FROM t' }])).toEqual([[['0']]]);
    // A statement within the limit still runs, on the same database.
    expect(await rows([{ sql: 'SELECT count(*) FROM range(1000)' }])).toEqual([[['1000']]]);
  });

  it('rolls back a batch whose rows pass the size limit, counting every statement', async () => {
    // `["<100 characters>"]` is 104 bytes: 400 rows (about 42 KB) fit, two such results do not.
    const rowsSql = `SELECT repeat('y', 100) FROM range(400)`;
    expect((await rows([{ sql: rowsSql }]))[0]).toHaveLength(400);
    const answer = await query([{ sql: 'INSERT INTO t VALUES (3)' }, { sql: rowsSql }, { sql: rowsSql }]);
    expect(answer.response.status).toBe(400);
    expect(answer.error?.error.code).toBe('result_too_large');
    expect(answer.error?.error.details?.bytesRead).toBeGreaterThan(RESULT_LIMIT_BYTES);
    expect(await rows([{ sql: 'SELECT count(*) FROM t' }])).toEqual([[['0']]]);
  });

  describe('with a minute per statement', () => {
    let service: ServiceProcess;
    let other: OrganizationFixture;
    let othersId: string;

    const worker = () => engineWorkerOf(service.child.pid!);

    /**
     * Sends a batch that inserts `n` and then runs a statement with no end, and answers once that
     * statement burns CPU in the engine worker: half a second of it means the insert before it ran.
     */
    async function insertThenRunEndlessly(n: number) {
      const pid = worker()!;
      const before = cpuTicksOf(pid);
      const pending = query([{ sql: 'INSERT INTO t VALUES (?)', params: [n] }, { sql: ENDLESS_SQL }]);
      await waitFor(() => (cpuTicksOf(pid) - before > 50 ? true : undefined), {
        timeoutMs: 20_000,
        what: 'the long statement to be running',
      });
      return { pid, pending };
    }

    beforeAll(async () => {
      // Statements must be allowed to run long enough to reach the memory and spill bounds, or to be
      // caught in the middle.
      await stack.processes.get('database')!.stop();
      service = await stack.startService('database', { QUERY_TIMEOUT_MS: '60000' });
      other = await createOrganization(stack.description);
      othersId = await createDatabaseIn(other.api, 'neighbour');
    }, 60_000);

    it('fails a query that builds a string or list past the worker memory, and the worker lives on', async () => {
      const before = worker()!;
      const neighbour = rows([{ sql: 'SELECT 42' }], other, othersId);
      const answers = await Promise.all([
        query([{ sql: 'SELECT length(repeat(?, 1500000000))', params: ['x'] }]),
        query([{ sql: 'SELECT length(list(range)) FROM range(300000000)' }]),
      ]);
      for (const answer of answers) {
        expect(answer.response.status).toBe(400);
        expect(answer.error?.error).toMatchObject({ code: 'query_failed', details: { statementIndex: 0 } });
        expect(answer.error?.error.message).toMatch(/^Out of Memory Error/);
      }
      expect(await neighbour).toEqual([[[42]]]);
      // The same worker answered: it was not killed and started again.
      expect(worker()).toBe(before);
      // Its memory stayed under the limit (resident memory is the data it may allocate plus code).
      expect(peakRssBytesOf(before)).toBeLessThan(WORKER_MEMORY_BYTES + 200 * MiB);
      expect(await rows([{ sql: 'SELECT count(*) FROM t' }])).toEqual([[['0']]]);
    });

    it("caps what a database spills to disk, and names no server path in the engine's message", async () => {
      const spilled = await query([
        {
          sql: `SELECT sum(a) FROM (SELECT hash(range) a, hash(range + 1) b, hash(range + 2) c,
                  hash(range + 3) d FROM range(10000000) ORDER BY a DESC OFFSET 1)`,
        },
      ]);
      expect(spilled.response.status).toBe(400);
      expect(spilled.error?.error.code).toBe('query_failed');
      expect(spilled.error?.error.message).toMatch(/max_temp_directory_size/);
      expect(JSON.stringify(spilled.error)).not.toContain(stack.env.DATA_DIR);
    });

    it("runs two batches of an organization at once, lets one wait its turn and refuses the next; others' are not held up", async () => {
      const started = Date.now();
      const batches = Array.from({ length: 5 }, () =>
        query([{ sql: BUSY_SQL }]).then((answer) => ({ answer, ms: Date.now() - started })),
      );
      // Once two are running, another organization's batch still runs at once.
      const pid = worker()!;
      const ticks = cpuTicksOf(pid);
      await waitFor(() => (cpuTicksOf(pid) - ticks > 50 ? true : undefined), {
        timeoutMs: 20_000,
        what: 'the batches to be running',
      });
      const neighbourStarted = Date.now();
      expect(await rows([{ sql: 'SELECT 1' }], other, othersId)).toEqual([[[1]]]);
      const neighbourMs = Date.now() - neighbourStarted;

      const settled = await Promise.all(batches);
      const ran = settled.filter(({ answer }) => answer.response.status === 200);
      const refused = settled.filter(({ answer }) => answer.response.status === 429);
      expect({ ran: ran.length, refused: refused.length }).toEqual({ ran: 3, refused: 2 });
      for (const { answer } of refused) {
        expect(answer.error?.error.code).toBe('rate_limited');
        expect(answer.error?.error.message).toMatch(/2 batches running and 1 waiting/);
      }
      // The one that waited ended after one of the first two, and was answered last.
      const times = ran.map(({ ms }) => ms).sort((a, b) => a - b);
      expect(times[2]! - times[0]!).toBeGreaterThan(500);
      expect(neighbourMs).toBeLessThan(times[0]!);
    });

    it('answers 503 to the batch a dead worker was running, keeps nothing of it, and starts the worker again', async () => {
      const { pid, pending } = await insertThenRunEndlessly(21);
      process.kill(pid, 'SIGKILL');
      const answer = await pending;
      expect(answer.response.status).toBe(503);
      expect(answer.error?.error.code).toBe('service_unavailable');
      expect(answer.error?.error.message).toMatch(/engine stopped while the batch ran/);
      expect(await rows([{ sql: 'SELECT count(*) FROM t' }])).toEqual([[['0']]]);
      expect(worker()).not.toBe(pid);
      expect(isRunning(service.child.pid!)).toBe(true);
    }, 60_000);

    it('rolls back the batch a killed service was running, keeps every committed one, and its worker dies with it', async () => {
      await rows([{ sql: 'INSERT INTO t VALUES (10)' }]);
      const { pid, pending } = await insertThenRunEndlessly(11);
      await service.kill('SIGKILL');

      const answer = await pending;
      expect(answer.response.status).toBe(503);
      expect(answer.error?.error.code).toBe('service_unavailable');
      // No worker outlives its service holding the files' locks.
      await waitFor(() => (isRunning(pid) ? undefined : true), {
        timeoutMs: 5_000,
        what: 'the engine worker to exit',
      });

      await stack.startService('database');
      expect(await rows([{ sql: 'SELECT n FROM t ORDER BY n' }])).toEqual([[[10]]]);
    }, 90_000);
  });
});
