import { readFileSync } from 'node:fs';

import { createOrganization, type OrganizationFixture, TestStack, waitFor } from '#testing';

/**
 * The query limits, lowered by configuration, and a restart in the middle of a batch. These need a
 * database service of their own: two processes must never open the same files, and the shared
 * stack keeps the contract's limits for every other test. So this file runs catalog, database and a
 * gateway on their own Postgres database, NATS server and data directory.
 */
const STATEMENT_TIMEOUT_MS = 500;
const RESULT_LIMIT_BYTES = 64 * 1024;

interface Statement {
  sql: string;
  params?: unknown[];
}

/** CPU time (user + system, in clock ticks) a process has used so far. */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

describe('database limits', () => {
  let stack: TestStack;
  let org: OrganizationFixture;
  let id: string;

  const query = (statements: Statement[]) => org.api.post(`/api/v1/databases/${id}/query`, { statements });
  const rows = async (statements: Statement[]) => {
    const response = await query(statements);
    expect({ status: response.status, error: response.body.error }).toEqual({
      status: 200,
      error: undefined,
    });
    return (response.body.results as Array<{ rows: unknown[][] }>).map((result) => result.rows);
  };

  beforeAll(async () => {
    stack = await TestStack.start(
      { QUERY_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS), RESULT_LIMIT_BYTES: String(RESULT_LIMIT_BYTES) },
      { services: ['catalog', 'database'] },
    );
    org = await createOrganization(stack.description);
    const created = await org.api.post('/api/v1/databases', { name: 'limits' });
    expect(created.status).toBe(201);
    id = created.body.id as string;
    await rows([{ sql: 'CREATE TABLE t (n INTEGER)' }]);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('stops a statement past the time limit, rolls the batch back and answers 500', async () => {
    const started = Date.now();
    const response = await query([
      { sql: 'INSERT INTO t VALUES (1)' },
      { sql: 'SELECT count(*) FROM range(1000000) a, range(1000000) b WHERE a.range * b.range = 7' },
      { sql: 'INSERT INTO t VALUES (2)' },
    ]);
    expect(response.status).toBe(500);
    expect(response.body.error).toEqual({
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
    const response = await query([{ sql: 'INSERT INTO t VALUES (3)' }, { sql: rowsSql }, { sql: rowsSql }]);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('result_too_large');
    expect(response.body.error.details.bytesRead).toBeGreaterThan(RESULT_LIMIT_BYTES);
    expect(await rows([{ sql: 'SELECT count(*) FROM t' }])).toEqual([[['0']]]);
  });

  it('rolls back the batch a killed service was running, and keeps every committed one', async () => {
    // A service that lets statements run long enough to be caught in the middle of one.
    await stack.processes.get('database')!.stop();
    const patient = await stack.startService('database', { QUERY_TIMEOUT_MS: '60000' });
    await rows([{ sql: 'INSERT INTO t VALUES (10)' }]);

    const pid = patient.child.pid!;
    const before = cpuTicks(pid);
    const pending = query([
      { sql: 'INSERT INTO t VALUES (11)' },
      { sql: 'SELECT count(*) FROM range(10000000) a, range(10000000) b WHERE a.range * b.range = 7' },
    ]);
    // The long statement burns CPU; half a second of it means the insert before it has run.
    await waitFor(() => (cpuTicks(pid) - before > 50 ? true : undefined), {
      timeoutMs: 20_000,
      what: 'the long statement to be running',
    });
    await patient.kill('SIGKILL');

    const answer = await pending;
    expect(answer.status).toBe(503);
    expect(answer.body.error.code).toBe('service_unavailable');

    await stack.startService('database');
    expect(await rows([{ sql: 'SELECT n FROM t ORDER BY n' }])).toEqual([[[10]]]);
  }, 90_000);
});
