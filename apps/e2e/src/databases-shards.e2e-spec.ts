import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { shardSubject } from '#contracts';
import {
  adminCli,
  appEntry,
  chainOf,
  connectAs,
  createDatabaseIn,
  createOrganization,
  createProject,
  createWorkflow,
  databaseUrl,
  expectData,
  nodes,
  type OrganizationFixture,
  queryDatabase,
  type QueryRows,
  rowsOf,
  startRun,
  type Statement,
  statusOf,
  TestStack,
  waitFor,
} from '#testing';
import type { NatsConnection } from '@nats-io/transport-node';
import pg from 'pg';

/**
 * Two replicas of the database service, shards 0 and 1, each with a data directory of its own, on
 * a stack of their own (docs/databases.md, "Scaling out"). Requests reach either replica through
 * the queue group; the one that does not hold the database forwards it.
 */
interface Shards {
  shards: Array<{ shard: number; state: string; live: boolean; databases: number }>;
}

interface Moves extends Shards {
  moved: Array<{ databaseId: string; from: number; to: number; bytes: number; ms: number }>;
  failed: Array<{ databaseId: string; message: string }>;
}

describe('database shards', () => {
  let stack: TestStack;
  let org: OrganizationFixture;
  let metadata: pg.Client;
  let asDatabase: NatsConnection;
  const dataDirs: Record<number, string> = {};

  const replicaEnv = (shard: number) => ({ DATABASE_SHARD: String(shard), DATA_DIR: dataDirs[shard]! });
  const startReplica = (shard: number) =>
    stack.startService('database', replicaEnv(shard), shard === 0 ? 'database' : `database-${shard}`);
  const admin = <T>(...args: string[]) => adminCli<T>(['databases', 'shards', ...args], stack.env);

  const shardOf = async (id: string): Promise<number> =>
    (await metadata.query<{ shard: number }>('SELECT shard FROM "database".databases WHERE id = $1', [id]))
      .rows[0].shard;
  const fileOn = (shard: number, id: string) =>
    existsSync(join(dataDirs[shard]!, 'databases', org.organizationId, `${id}.duckdb`));

  const query = (id: string, statements: Statement[]) => queryDatabase(org.api, id, statements);
  const rows = async (id: string, sql: string, params: Statement['params'] = []): Promise<QueryRows> =>
    (await rowsOf(org.api, id, [{ sql, params }]))[0];
  const createDatabase = (name: string): Promise<string> => createDatabaseIn(org.api, name);

  beforeAll(async () => {
    dataDirs[0] = mkdtempSync(join(tmpdir(), 'flowmesh-shard0-'));
    dataDirs[1] = mkdtempSync(join(tmpdir(), 'flowmesh-shard1-'));
    stack = await TestStack.start(replicaEnv(0), {
      services: ['catalog', 'database', 'events', 'workflow', 'runner'],
    });
    await startReplica(1);
    metadata = new pg.Client({ connectionString: databaseUrl(stack.description.databaseName) });
    await metadata.connect();
    asDatabase = await connectAs(stack.description, 'database');
    org = await createOrganization(stack.description);
  }, 180_000);

  afterAll(async () => {
    await asDatabase?.close();
    await metadata?.end();
    await stack?.stop();
    for (const dir of Object.values(dataDirs)) rmSync(dir, { recursive: true, force: true });
  });

  it('registers both replicas and spreads new databases evenly over them', async () => {
    const listed = await admin<Shards>('list');
    expect(listed.shards.map(({ shard, state, live }) => ({ shard, state, live }))).toEqual([
      { shard: 0, state: 'active', live: true },
      { shard: 1, state: 'active', live: true },
    ]);
    const ids = [];
    for (let index = 0; index < 6; index += 1) ids.push(await createDatabase(`spread-${index}`));
    const placed = await Promise.all(ids.map(shardOf));
    expect(placed.filter((shard) => shard === 0)).toHaveLength(3);
    expect(placed.filter((shard) => shard === 1)).toHaveLength(3);
    // The file is made by the replica that holds the database, on its own volume only.
    ids.forEach((id, index) => {
      expect({ id, on0: fileOn(0, id), on1: fileOn(1, id) }).toEqual({
        id,
        on0: placed[index] === 0,
        on1: placed[index] === 1,
      });
    });
  });

  describe('with a database on each shard', () => {
    const on: Record<number, string> = {};

    beforeAll(async () => {
      for (let index = 0; on[0] === undefined || on[1] === undefined; index += 1) {
        const id = await createDatabase(`routes-${index}`);
        on[await shardOf(id)] ??= id;
      }
      for (const id of Object.values(on)) await rows(id, 'CREATE TABLE t (n INTEGER, tag VARCHAR)');
    });

    it('answers every route whichever replica the queue group hands the request to', async () => {
      // Twenty requests per database over two replicas: each replica takes some (all twenty
      // landing on one has a chance of 2^-19), so both the holder and the forwarding one answer.
      for (const [shard, id] of Object.entries(on)) {
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, n) =>
            query(id, [{ sql: 'INSERT INTO t VALUES (?, ?)', params: [n, shard] }]),
          ),
        );
        expect(answers.map((answer) => answer.response.status)).toEqual(Array(20).fill(200));
        expect(await rows(id, 'SELECT count(*), count(DISTINCT n), min(tag) FROM t')).toEqual([
          ['20', '20', shard],
        ]);
        for (let n = 0; n < 10; n += 1) {
          expect(await statusOf(org.api.GET('/api/v1/databases/{id}', { params: { path: { id } } }))).toBe(
            200,
          );
        }
        const renamed = await org.api.PATCH('/api/v1/databases/{id}', {
          params: { path: { id } },
          body: { name: `renamed-${shard}` },
        });
        expect(renamed.data?.name).toBe(`renamed-${shard}`);
      }
      const listed = await org.api.listAll('/api/v1/databases');
      expect(listed.map((database) => database.id)).toEqual(expect.arrayContaining(Object.values(on)));
    });

    it('relays answers of many parts (12 MiB) and requests of many parts (10 MB) to and from either shard', async () => {
      const big = `SELECT repeat('x', 1024) AS cell FROM range(12 * 1024)`;
      for (const id of Object.values(on)) {
        for (let attempt = 0; attempt < 4; attempt += 1) {
          const answer = await query(id, [{ sql: big }]);
          expect(answer.response.status).toBe(200);
          expect(answer.data?.results[0].rows).toHaveLength(12 * 1024);
        }
        const statements = Array.from({ length: 100 }, () => ({
          sql: `SELECT length('${'y'.repeat(99_950)}')`,
        }));
        for (let attempt = 0; attempt < 4; attempt += 1) {
          const answer = await query(id, statements);
          expect(answer.response.status).toBe(200);
          expect(answer.data?.results).toHaveLength(100);
          expect(answer.data?.results[99].rows).toEqual([['99950']]);
        }
      }
      // 28 s alone; beside the rest of the suite on two cores it took over 120 s.
    }, 300_000);

    it("runs the runner's database step on a database of either shard", async () => {
      const project = await createProject(org.api, 'Shards');
      for (const [shard, id] of Object.entries(on)) {
        // Created and published, each answered 201.
        const workflowId = await createWorkflow(
          org.api,
          project,
          chainOf(
            nodes.trigger('t'),
            nodes.database('write', id, 'INSERT INTO t VALUES (?, ?) RETURNING n', [1000, 'step']),
          ),
          { name: `Step on shard ${shard}` },
        );
        for (let run = 0; run < 4; run += 1) {
          const started = expectData(await startRun(org.api, workflowId, {}, { Prefer: 'wait=30' }), 201);
          expect({ status: started.status, error: started.error ?? null }).toEqual({
            status: 'complete',
            error: null,
          });
        }
        expect(await rows(id, `SELECT count(*) FROM t WHERE tag = 'step'`)).toEqual([['4']]);
      }
    });

    it('deletes a database of either shard, with its file on the volume that held it', async () => {
      for (const shard of [0, 1]) {
        const id = await createDatabase(`deleted-${shard}`);
        // Created where there are fewer: move it where this case wants it if need be.
        if ((await shardOf(id)) !== shard) await moveTo(id, shard);
        expect(fileOn(shard, id)).toBe(true);
        expect(await statusOf(org.api.DELETE('/api/v1/databases/{id}', { params: { path: { id } } }))).toBe(
          200,
        );
        expect(await statusOf(org.api.GET('/api/v1/databases/{id}', { params: { path: { id } } }))).toBe(404);
        expect(fileOn(shard, id)).toBe(false);
      }
    });
  });

  /** Asks the shard holding the database to move it, as a drain does, over the replicas' own subject. */
  async function moveTo(id: string, target: number): Promise<{ bytes: number; ms: number }> {
    const from = await shardOf(id);
    // The test process runs without the stack's subject prefix, so it is added here.
    const reply = await asDatabase.request(
      `${stack.env.NATS_SUBJECT_PREFIX ?? ''}${shardSubject(from, 'move')}`,
      JSON.stringify({ principal: null, data: { databaseId: id, target } }),
      { timeout: 60_000 },
    );
    const envelope = reply.json<{ ok: boolean; data: { bytes: number; ms: number }; error?: unknown }>();
    expect({ ok: envelope.ok, error: envelope.error }).toEqual({ ok: true, error: undefined });
    return envelope.data;
  }

  it('moves a database while writers run: every acknowledged write is there exactly once, nothing else', async () => {
    const id = await createDatabase('moving');
    await rows(id, 'CREATE TABLE w (k INTEGER, writer INTEGER)');
    await rows(id, 'INSERT INTO w SELECT range, -1 FROM range(200000)');
    const from = await shardOf(id);
    const target = 1 - from;
    const outcomes = new Map<number, number>();
    const started = new Map<number, number>();
    let moveWindow = [0, 0];
    let stop = false;
    let next = 1_000_000;
    const writer = async (writerId: number) => {
      while (!stop) {
        const k = next++;
        started.set(k, Date.now());
        const answer = await query(id, [{ sql: 'INSERT INTO w VALUES (?, ?)', params: [k, writerId] }]);
        outcomes.set(k, answer.response.status);
      }
    };
    const writers = Array.from({ length: 4 }, (_, n) => writer(n));
    let moved: { bytes: number; ms: number };
    try {
      // Writes are landing before the move starts, and keep landing after it.
      await waitFor(() => (outcomes.size >= 40 ? true : undefined), { what: 'writes before the move' });
      moveWindow = [Date.now(), 0];
      moved = await moveTo(id, target);
      moveWindow[1] = Date.now();
      const after = outcomes.size;
      // Generous: beside the rest of the suite on two cores the writers' pace drops several-fold.
      await waitFor(() => (outcomes.size >= after + 40 ? true : undefined), {
        what: 'writes after the move',
        timeoutMs: 60_000,
      });
    } finally {
      stop = true;
      await Promise.allSettled(writers);
    }

    // Some writes were sent while the move held the database: they waited and were forwarded.
    const [moveStart, moveEnd] = moveWindow;
    const duringMove = [...started.values()].filter((at) => at >= moveStart! && at <= moveEnd!).length;
    expect(duringMove).toBeGreaterThan(0);
    expect(await shardOf(id)).toBe(target);
    expect({ source: fileOn(from, id), target: fileOn(target, id) }).toEqual({ source: false, target: true });
    const statuses = [...outcomes.values()];
    // No crash is involved, so no write is ambiguous: each waited out the move and was answered.
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    const stored = (await rows(id, 'SELECT k, count(*) FROM w WHERE writer >= 0 GROUP BY k ORDER BY k')).map(
      ([k, count]) => [Number(k), Number(count)],
    );
    const acknowledged = [...outcomes.entries()].filter(([, status]) => status === 200).map(([k]) => k);
    expect(stored).toEqual(acknowledged.sort((a, b) => a - b).map((k) => [k, 1]));
    expect(await rows(id, 'SELECT count(*) FROM w WHERE writer = -1')).toEqual([['200000']]);
    expect(moved!.bytes).toBeGreaterThan(0);
    console.info(
      `moved ${moved.bytes} bytes in ${moved.ms} ms; ${outcomes.size} writes, ${duringMove} sent during the move`,
    );
  }, 120_000);

  it('drains a shard for a scale-down, and rebalances after it comes back, keeping every database’s data', async () => {
    const all = await org.api.listAll('/api/v1/databases');
    const tables = new Map<string, QueryRows>();
    for (const { id } of all) {
      tables.set(id, await rows(id, 'SELECT table_name FROM information_schema.tables ORDER BY 1'));
    }
    const drained = await admin<Moves>('drain', '--shard', '1');
    expect(drained.failed).toEqual([]);
    expect(drained.moved.length).toBeGreaterThan(0);
    expect(drained.shards.map(({ shard, state, databases }) => ({ shard, state, databases }))).toEqual([
      { shard: 0, state: 'active', databases: all.length },
      { shard: 1, state: 'leaving', databases: 0 },
    ]);
    // A leaving shard takes no new database.
    const fresh = await createDatabase('after-drain');
    expect(await shardOf(fresh)).toBe(0);
    for (const [id, expected] of tables) {
      expect({
        id,
        tables: await rows(id, 'SELECT table_name FROM information_schema.tables ORDER BY 1'),
      }).toEqual({
        id,
        tables: expected,
      });
      expect(fileOn(1, id)).toBe(false);
    }

    const rebalanced = await admin<Moves>('rebalance');
    expect(rebalanced.failed).toEqual([]);
    const counts = rebalanced.shards.map(({ shard, state, databases }) => ({ shard, state, databases }));
    const total = all.length + 1;
    expect(counts).toEqual([
      { shard: 0, state: 'active', databases: Math.ceil(total / 2) },
      { shard: 1, state: 'active', databases: Math.floor(total / 2) },
    ]);
    for (const [id, expected] of tables) {
      expect(await rows(id, 'SELECT table_name FROM information_schema.tables ORDER BY 1')).toEqual(expected);
    }
  }, 180_000);

  it('answers 503 for the databases of a killed replica only, and serves them again after its restart', async () => {
    const on: Record<number, string> = {};
    for (const { id } of await org.api.listAll('/api/v1/databases')) {
      on[await shardOf(id)] ??= id;
    }
    await rows(on[1]!, 'CREATE TABLE kept (v VARCHAR)');
    await rows(on[1]!, `INSERT INTO kept VALUES ('before the kill')`);

    await stack.processes.get('database-1')!.kill('SIGKILL');
    // Every request now lands on shard 0, which forwards to a shard nobody serves.
    const lost = await query(on[1]!, [{ sql: 'SELECT * FROM kept' }]);
    expect(lost.response.status).toBe(503);
    expect(lost.error?.error.code).toBe('service_unavailable');
    for (let n = 0; n < 5; n += 1) expect(await statusOf(query(on[0]!, [{ sql: 'SELECT 1' }]))).toBe(200);
    // Metadata is in Postgres, so the database is still listed and readable as a resource.
    expect(await statusOf(org.api.GET('/api/v1/databases/{id}', { params: { path: { id: on[1]! } } }))).toBe(
      200,
    );
    // A creation meant for the dead shard is made on a live one.
    const made = await createDatabase('while-one-is-down');
    expect(await shardOf(made)).toBe(0);

    await startReplica(1);
    expect(await rows(on[1]!, 'SELECT v FROM kept')).toEqual([['before the kill']]);
  }, 120_000);

  it('settles a move cut short by crashes on restart: one copy, where the row says', async () => {
    const id = await createDatabase('cut-short');
    if ((await shardOf(id)) !== 0) await moveTo(id, 0);
    await rows(id, 'CREATE TABLE s (v INTEGER)');
    await rows(id, 'INSERT INTO s VALUES (42)');
    // As if shard 0 died mid-move after shard 1 verified its copy, before the row changed:
    // the row still names the move, and shard 1 holds a copy it never adopted.
    await stack.processes.get('database')!.kill('SIGKILL');
    const copyDir = join(dataDirs[1]!, 'databases', org.organizationId);
    mkdirSync(copyDir, { recursive: true });
    cpSync(
      join(dataDirs[0]!, 'databases', org.organizationId, `${id}.duckdb`),
      join(copyDir, `${id}.duckdb`),
    );
    await metadata.query('UPDATE "database".databases SET move_id = gen_random_uuid() WHERE id = $1', [id]);
    await stack.processes.get('database-1')!.kill('SIGKILL');

    await startReplica(0);
    await startReplica(1);
    const row = (
      await metadata.query<{ shard: number; move_id: string | null }>(
        'SELECT shard, move_id FROM "database".databases WHERE id = $1',
        [id],
      )
    ).rows[0];
    expect(row).toEqual({ shard: 0, move_id: null });
    expect({ on0: fileOn(0, id), on1: fileOn(1, id) }).toEqual({ on0: true, on1: false });
    expect(await rows(id, 'SELECT v FROM s')).toEqual([[42]]);
  }, 120_000);

  it('refuses to start a replica on another shard’s data directory', async () => {
    // The process stops by itself: wait for its exit rather than for a readiness that never comes.
    const child = spawn(process.execPath, [appEntry('database')], {
      env: { ...process.env, ...stack.env, DATABASE_SHARD: '2', DATA_DIR: dataDirs[1]!, HEALTH_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // Should it start after all, it must not outlive the test.
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(timer);
    expect(code).not.toBe(0);
    expect(output).toContain('belongs to database shard 1, not 2');
  }, 60_000);
});
