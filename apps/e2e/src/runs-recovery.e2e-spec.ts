import { RunJobsStream } from '#contracts';
import {
  type ApiClient,
  chainOf,
  connectAs,
  createDatabaseIn,
  createOrganization,
  createProject,
  createWorkflow,
  finished,
  nodes,
  type QueryRows,
  rowsOf,
  runReaches,
  type ServiceProcess,
  startRun,
  type Statement,
  type TestNode,
  TestStack,
  waitFor,
} from '#testing';
import pg from 'pg';

/**
 * Crashes, restarts and replicas of the runner. These tests kill and start runner processes, so they
 * run against a stack of their own rather than the shared one, with a short lease (the JetStream ack
 * wait of a run job) so a dead runner's runs are taken over in seconds.
 */

const RUNNER_ENV = {
  RUNNER_LEASE_MS: '2000',
  RUNNER_SWEEP_INTERVAL_MS: '200',
  RUNNER_REQUEUE_AFTER_MS: '1000',
  RUNNER_SHUTDOWN_GRACE_MS: '500',
};

describe('run recovery', () => {
  let stack: TestStack;
  let api: ApiClient;
  let projectId: string;
  let databaseId: string;
  let db: pg.Client;
  let runners: ServiceProcess[] = [];

  async function startRunner(name: string, env: Record<string, string> = {}): Promise<ServiceProcess> {
    const runner = await stack.startService('runner', { ...RUNNER_ENV, ...env }, name);
    runners.push(runner);
    return runner;
  }

  /** A published workflow of the nodes one after another. */
  const workflow = (...chained: TestNode[]) =>
    createWorkflow(api, projectId, chainOf(...chained), { name: 'Recovery' });

  const insert = (id: string) =>
    nodes.database(id, databaseId, 'INSERT INTO executions VALUES (?, ?)', [id, '{{trigger.tag}}']);

  async function sql(statement: string, params: Statement['params'] = []): Promise<QueryRows> {
    const [rows] = await rowsOf(api, databaseId, [{ sql: statement, params }]);
    return rows;
  }

  /** How often each step of a run inserted its row. */
  async function executions(tag: string): Promise<Record<string, number>> {
    const rows = await sql('SELECT node, count(*) AS n FROM executions WHERE tag = ? GROUP BY node', [tag]);
    return Object.fromEntries(rows.map(([nodeId, count]) => [String(nodeId), Number(count)]));
  }

  const ended = (runId: string, timeoutMs = 30_000) => finished(api, runId, { timeoutMs });

  async function checkpoints(runId: string): Promise<Array<{ node_id: string; status: string }>> {
    const { rows } = await db.query<{ node_id: string; status: string }>(
      'SELECT node_id, status FROM runner.run_steps WHERE run_id = $1 ORDER BY position',
      [runId],
    );
    return rows;
  }

  beforeAll(async () => {
    stack = await TestStack.start({ ...RUNNER_ENV, RATE_LIMIT_PER_HOUR: '100000' });
    runners = [stack.processes.get('runner')!];
    const org = await createOrganization(stack.description);
    api = org.api;
    projectId = await createProject(api, 'Recovery');
    databaseId = await createDatabaseIn(api, 'recovery');
    await sql('CREATE TABLE executions (node TEXT, tag TEXT)');
    db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  afterEach(async () => {
    // Each test leaves exactly one runner running.
    const alive = runners.filter(
      (runner) => runner.child.exitCode === null && runner.child.signalCode === null,
    );
    for (const extra of alive.slice(1)) await extra.stop();
    runners = alive.slice(0, 1);
    if (runners.length === 0) await startRunner(`runner-${Date.now()}`);
  });

  // inline: the runner that accepted the run was executing it (no job exists; the sweeper hands it on
  // once the lease runs out). queue: the run came as a job, which JetStream delivers again once its ack
  // wait has passed (or the sweeper republishes, whichever comes first).
  it.each(['inline', 'queue'])(
    'finishes a run whose runner was killed mid-step (%s), running no done step again',
    async (mode) => {
      await runners[0]!.stop();
      await startRunner(`runner-${mode}`, { RUNNER_START_MODE: mode });
      runners = runners.filter(
        (runner) => runner.child.exitCode === null && runner.child.signalCode === null,
      );
      const tag = `crash-${mode}`;
      const workflowId = await workflow(
        nodes.trigger('t'),
        insert('first'),
        // A statement that keeps the database busy for a moment: the runner is killed during it.
        nodes.database('slow', databaseId, 'SELECT sum(i) AS total FROM range(600000000) t(i)'),
        insert('last'),
      );
      const started = await startRun(api, workflowId, { input: JSON.stringify({ tag }) });
      expect(started.response.status).toBe(201);
      const runId = started.data!.id;

      // Poll Postgres directly: the slow step's `running` checkpoint is written before it starts.
      await waitFor(
        async () => {
          const { rows } = await db.query<{ status: string }>(
            `SELECT status FROM runner.run_steps WHERE run_id = $1 AND node_id = 'slow'`,
            [runId],
          );
          return rows[0]?.status === 'running' ? true : undefined;
        },
        { intervalMs: 10, what: 'the slow step to start' },
      );
      await runners[0]!.kill('SIGKILL');
      // With no runner alive the API cannot read runs; the checkpoints are in Postgres.
      expect(await checkpoints(runId)).toEqual([
        { node_id: 't', status: 'done' },
        { node_id: 'first', status: 'done' },
        { node_id: 'slow', status: 'running' },
      ]);
      const firstAtKill = await db.query<{ output: unknown; started_at: Date }>(
        `SELECT output, started_at FROM runner.run_steps WHERE run_id = $1 AND node_id = 'first'`,
        [runId],
      );

      await startRunner(`runner-after-crash-${mode}`);
      const run = await ended(runId);
      expect(run.status).toBe('complete');
      expect(run.steps.map((step) => [step.nodeId, step.status])).toEqual([
        ['t', 'done'],
        ['first', 'done'],
        ['slow', 'done'],
        ['last', 'done'],
      ]);
      expect(JSON.parse(run.steps[2]!.output!.rows!)).toEqual([{ total: expect.anything() }]);
      // The step that was done before the crash ran once; the one after it ran once.
      expect(await executions(tag)).toEqual({ first: 1, last: 1 });
      expect(run.steps[1]!.output).toEqual(firstAtKill.rows[0]!.output);
      expect(run.steps[1]!.startedAt).toBe(firstAtKill.rows[0]!.started_at.toISOString());
    },
    60_000,
  );

  it('keeps a delay through a runner restart: the wait is a row, not a sleeping process', async () => {
    const workflowId = await workflow(nodes.trigger('t'), nodes.delay('wait', 3), insert('after'));
    const started = await startRun(api, workflowId, { input: '{"tag": "restart"}' });
    const runId = started.data!.id;
    const waiting = await runReaches(api, runId, ['waiting'], { intervalMs: 50, what: 'the run to wait' });
    const due = Date.parse(waiting.steps[1]!.input!);
    await runners[0]!.kill('SIGKILL');
    // No runner is alive when the delay falls due.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now()) + 500));
    const { rows } = await db.query<{ status: string }>('SELECT status FROM runner.runs WHERE id = $1', [
      runId,
    ]);
    expect(rows[0]!.status).toBe('waiting');

    await startRunner('runner-after-restart');
    const run = await ended(runId);
    expect(run.status).toBe('complete');
    expect(run.steps[1]).toMatchObject({ nodeId: 'wait', status: 'done' });
    expect(Date.parse(run.steps[1]!.output!.until!)).toBeGreaterThanOrEqual(due);
    expect(await executions('restart')).toEqual({ after: 1 });
  }, 60_000);

  it('shares the queue between two replicas without executing a run twice', async () => {
    await runners[0]!.stop();
    // A lease long enough that no holder loses a run it is executing, even on a loaded machine: a
    // takeover re-runs the step that was running (at least once, by design), and this test is about
    // duplicate jobs meeting a held run, not about takeovers.
    const replicaEnv = { RUNNER_CONCURRENCY: '4', LOG_LEVEL: 'debug', RUNNER_LEASE_MS: '10000' };
    const replicas = [await startRunner('replica-a', replicaEnv), await startRunner('replica-b', replicaEnv)];
    const workflowId = await workflow(nodes.trigger('t'), insert('one'), insert('two'));
    // Every run's job is also queued twice more, as a republish by a sweeper or a client retry
    // outside the dedupe window would: both replicas get jobs for the same runs at the same time,
    // and only the lease on the run keeps them from executing it twice.
    const nats = await connectAs(stack.description, 'runner');
    const tags = Array.from({ length: 30 }, (_, index) => `replica-${index}`);
    const ids = await Promise.all(
      tags.map(async (tag) => {
        const started = await startRun(api, workflowId, { input: JSON.stringify({ tag }) });
        expect(started.response.status).toBe(201);
        const runId = started.data!.id;
        for (const dispatch of [100, 101]) {
          nats.publish(
            `${stack.env.NATS_SUBJECT_PREFIX}${RunJobsStream.bareSubject}`,
            JSON.stringify({ runId, dispatch }),
          );
        }
        return runId;
      }),
    );
    await nats.drain();
    const runs = await Promise.all(ids.map((id) => ended(id, 45_000)));
    expect(runs.map((run) => run.status)).toEqual(runs.map(() => 'complete'));

    const rows = await sql(
      `SELECT tag, node, count(*) AS n FROM executions WHERE tag LIKE 'replica-%' GROUP BY tag, node`,
    );
    expect(rows).toHaveLength(60);
    expect(rows.filter(([, , count]) => Number(count) !== 1)).toEqual([]);

    // Both replicas executed runs, and duplicate jobs reached a replica while a run was held.
    for (const replica of replicas) expect(replica.output()).toContain('run execution ended');
    const refused = replicas.map(
      (replica) => replica.output().split('run job found nothing to claim').length - 1,
    );
    expect(refused[0]! + refused[1]!).toBeGreaterThanOrEqual(60);
  }, 90_000);
});
