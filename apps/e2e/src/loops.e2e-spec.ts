import { LOOP_MAX_ITEMS } from '#contracts';
import {
  type ApiClient,
  createConnection,
  createDatabaseIn,
  createOrganization,
  createProject,
  createWorkflow,
  edge,
  expectData,
  finished,
  HttpTarget,
  nodes,
  type QueryRows,
  rowsOf,
  type Schemas,
  type ServiceProcess,
  startRun,
  type Statement,
  stepOf,
  type TestDiagram,
  TestStack,
  waitFor,
  type WorkflowRun,
} from '#testing';
import pg from 'pg';

/**
 * The `loop` node (docs/workflows.md, "Loops"): iterations as child runs, nested loops, failures,
 * the limit on items, cancel, and a runner SIGKILLed in the middle of a 1,000-item loop. A stack of
 * its own, since a test kills the runner, with a short lease so the dead runner's runs are taken over
 * in seconds.
 */

const RUNNER_ENV = {
  RUNNER_LEASE_MS: '2000',
  RUNNER_SWEEP_INTERVAL_MS: '200',
  RUNNER_REQUEUE_AFTER_MS: '1000',
  RUNNER_SHUTDOWN_GRACE_MS: '500',
};

type RunSummary = Schemas['WorkflowRunSummaryPage']['data'][number];

describe('loops', () => {
  let stack: TestStack;
  let api: ApiClient;
  let projectId: string;
  let databaseId: string;
  let db: pg.Client;
  let runner: ServiceProcess;
  /** An app the workflows' actions call through `httpConnection`. */
  let app: HttpTarget;
  let httpConnection: string;

  async function sql(statement: string, params: Statement['params'] = []): Promise<QueryRows> {
    const [rows] = await rowsOf(api, databaseId, [{ sql: statement, params }]);
    return rows;
  }

  const workflow = (diagram: TestDiagram) => createWorkflow(api, projectId, diagram, { name: 'Loops' });

  async function run(workflowId: string, input: unknown, timeoutMs = 60_000): Promise<WorkflowRun> {
    const started = expectData(await startRun(api, workflowId, { input: JSON.stringify(input) }), 201);
    return finished(api, started.id, { timeoutMs });
  }

  /** Every child of the run's step `nodeId`, through `/children`, a page of `limit` at a time. */
  async function childrenOf(runId: string, nodeId: string, limit = 2): Promise<RunSummary[]> {
    const all: RunSummary[] = [];
    let cursor: string | undefined;
    do {
      const page = expectData(
        await api.GET('/api/v1/runs/{id}/children', {
          params: { path: { id: runId }, query: { nodeId, limit, ...(cursor ? { cursor } : {}) } },
        }),
        200,
      );
      all.push(...page.data);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return all;
  }

  const read = async (runId: string) =>
    expectData(await api.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } }), 200);

  async function iterationStatuses(runId: string, loopId: string): Promise<Map<number, string>> {
    const { rows } = await db.query<{ iteration: number; status: string }>(
      'SELECT iteration, status FROM runner.runs WHERE parent_run_id = $1 AND parent_node_id = $2',
      [runId, loopId],
    );
    return new Map(rows.map((row) => [row.iteration, row.status]));
  }

  beforeAll(async () => {
    stack = await TestStack.start({
      ...RUNNER_ENV,
      RATE_LIMIT_PER_HOUR: '100000',
      ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    runner = stack.processes.get('runner')!;
    const org = await createOrganization(stack.description);
    api = org.api;
    app = await HttpTarget.start();
    ({ connectionId: httpConnection } = await createConnection(
      stack.description,
      org.organizationId,
      'http',
    ));
    projectId = await createProject(api, 'Loops');
    databaseId = await createDatabaseIn(api, 'loops');
    await sql('CREATE TABLE processed (n BIGINT, iteration INTEGER, tag TEXT)');
    db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    await Promise.all([db?.end(), app?.stop()]);
    await stack?.stop();
  });

  it('runs nested loops two deep: outer items × inner items, results nested, scopes inherited', async () => {
    // t → before → outer(body: inner(body: pair → back to inner) → back to outer) → after
    const workflowId = await workflow({
      nodes: [
        nodes.trigger('t'),
        nodes.database('before', databaseId, "SELECT 'pre' AS tag"),
        nodes.loop('outer', '{{trigger.outer}}', { concurrency: 2 }),
        nodes.loop('inner', '{{trigger.inner}}'),
        nodes.database('pair', databaseId, 'SELECT ? AS pair', [
          '{{nodes.before.rows.0.tag}}:{{trigger.sep}}{{nodes.outer.item}}{{trigger.sep}}{{loop.item.name}}{{trigger.sep}}{{nodes.outer.index}}.{{loop.index}}',
        ]),
        nodes.database('after', databaseId, 'SELECT ? AS count, ? AS failed', [
          '{{nodes.outer.count}}',
          '{{nodes.outer.failed}}',
        ]),
      ],
      edges: [
        edge('e1', 't', 'before'),
        edge('e2', 'before', 'outer'),
        edge('e3', 'outer', 'inner', 'body'),
        edge('e4', 'inner', 'pair', 'body'),
        edge('e5', 'pair', 'inner', undefined, 'done'),
        edge('e6', 'inner', 'outer', 'done', 'done'),
        edge('e7', 'outer', 'after', 'done'),
      ],
    });
    const done = await run(workflowId, { outer: [1, 2, 3], inner: [{ name: 'a' }, { name: 'b' }], sep: '/' });
    expect(done.status).toBe('complete');
    // The run itself never walks into a body: its steps are the loop's summary and what follows it.
    expect(done.steps.map((step) => [step.nodeId, step.status])).toEqual([
      ['t', 'done'],
      ['before', 'done'],
      ['outer', 'done'],
      ['after', 'done'],
    ]);
    const outer = stepOf(done, 'outer')!;
    expect(JSON.parse(outer.input!)).toEqual({ items: 3, concurrency: 2, continueOnError: false });
    expect(outer.output).toMatchObject({ count: '3', failed: '0' });
    expect(JSON.parse(outer.output!.results!)).toEqual(
      [1, 2, 3].map((o, oi) => ['a', 'b'].map((name, ii) => [{ pair: `pre:/${o}/${name}/${oi}.${ii}` }])),
    );
    expect(JSON.parse(stepOf(done, 'after')!.output!.rows!)).toEqual([{ count: '3', failed: '0' }]);

    // The outer iterations, in order, paged; each is a run of the loop and its body.
    const iterations = await childrenOf(done.id, 'outer');
    expect(
      iterations.map((child) => [child.iteration, child.parentRunId, child.parentNodeId, child.status]),
    ).toEqual([0, 1, 2].map((index) => [index, done.id, 'outer', 'complete']));
    const second = await read(iterations[1]!.id);
    expect(second).toMatchObject({ parentRunId: done.id, parentNodeId: 'outer', iteration: 1, input: '2' });
    expect(second.diagram.nodes.map((node) => node.id)).toEqual(['outer', 'inner', 'pair']);
    expect(second.steps.map((step) => [step.nodeId, step.status, step.output])).toEqual([
      ['outer', 'done', { item: '2', index: '1' }],
      ['inner', 'done', expect.objectContaining({ count: '2', failed: '0' })],
    ]);
    // …and the inner iterations are the outer iteration's children.
    const inner = await childrenOf(second.id, 'inner');
    expect(inner.map((child) => child.iteration)).toEqual([0, 1]);
    const innerRun = await read(inner[1]!.id);
    expect(innerRun.steps.map((step) => step.nodeId)).toEqual(['inner', 'pair']);
    expect(innerRun.reply).toBe(JSON.stringify([{ pair: 'pre:/2/b/1.1' }]));
    // Iterations are not among the workflow's runs.
    const listed = expectData(
      await api.GET('/api/v1/workflows/{id}/runs', { params: { path: { id: workflowId } } }),
      200,
    );
    expect(listed.data.map((summary) => summary.id)).toEqual([done.id]);
  }, 90_000);

  /** t → each(body: cast) where `cast` fails on an item that is not a number. */
  const castingLoop = (extra: { continueOnError?: boolean; concurrency?: number }) =>
    workflow({
      nodes: [
        nodes.trigger('t'),
        nodes.loop('each', '{{trigger}}', extra),
        nodes.database('cast', databaseId, 'SELECT CAST(? AS INTEGER) AS n', ['{{loop.item}}']),
      ],
      edges: [edge('e1', 't', 'each'), edge('e2', 'each', 'cast', 'body')],
    });

  it('puts a failed iteration in the results with continueOnError', async () => {
    const done = await run(await castingLoop({ continueOnError: true, concurrency: 3 }), ['1', 'oops', '3']);
    expect(done.status).toBe('complete');
    const each = stepOf(done, 'each')!;
    expect(each.output).toMatchObject({ count: '3', failed: '1' });
    const [failedIteration] = (await childrenOf(done.id, 'each')).filter(
      (child) => child.status === 'errored',
    );
    expect(failedIteration!.iteration).toBe(1);
    expect(JSON.parse(each.output!.results!)).toEqual([
      [{ n: 1 }],
      { error: expect.stringContaining('oops'), runId: failedIteration!.id },
      [{ n: 3 }],
    ]);
    expect(done.reply).toBe(each.output!.results);
  }, 60_000);

  it('fails the loop at a failed iteration, naming it, and cancels the iterations still going', async () => {
    // Iteration 1's call fails only once 0 and 2 are in their minute-long wait, so they are
    // unfinished, mid-step, when it does.
    let fail!: () => void;
    const failing = new Promise<void>((resolve) => (fail = resolve));
    app.respond('/fail-later', { status: 500, body: { error: 'the app is broken' }, until: failing });
    const workflowId = await workflow({
      nodes: [
        nodes.trigger('t'),
        nodes.loop('each', '{{trigger}}', { concurrency: 3 }),
        nodes.condition('first', [{ left: '{{loop.index}}', operator: 'equals', right: '1' }]),
        nodes.httpCall('call', `${app.url}/fail-later`, { connectionId: httpConnection }),
        nodes.delay('wait', 60),
      ],
      edges: [
        edge('e1', 't', 'each'),
        edge('e2', 'each', 'first', 'body'),
        edge('e3', 'first', 'call', 'true'),
        edge('e4', 'first', 'wait', 'false'),
      ],
    });
    const started = expectData(await startRun(api, workflowId, { input: JSON.stringify([1, 2, 3, 4]) }), 201);
    await waitFor(
      async () => {
        const { rows } = await db.query<{ waiting: string }>(
          `SELECT count(*) AS waiting FROM runner.runs r JOIN runner.run_steps s ON s.run_id = r.id
            WHERE r.parent_run_id = $1 AND s.node_id = 'wait'`,
          [started.id],
        );
        return Number(rows[0]!.waiting) === 2 ? true : undefined;
      },
      { what: 'iterations 0 and 2 in their wait', timeoutMs: 30_000 },
    );
    fail();
    const done = await finished(api, started.id, { timeoutMs: 60_000 });
    expect(done.status).toBe('errored');
    const iterations = await childrenOf(done.id, 'each', 10);
    // The fourth never started: three were unfinished until the loop failed.
    expect(iterations.map((child) => [child.iteration, child.status])).toEqual([
      [0, 'terminated'],
      [1, 'errored'],
      [2, 'terminated'],
    ]);
    const failed = iterations[1]!;
    expect(stepOf(done, 'each')).toMatchObject({
      status: 'error',
      error: expect.stringMatching(
        new RegExp(`^Iteration 1 of loop "each" \\(run ${failed.id}\\) failed: .*500`),
      ),
    });
    expect(done.error).toBe(stepOf(done, 'each')!.error);
    for (const cancelledIteration of [iterations[0]!, iterations[2]!]) {
      const cancelled = await read(cancelledIteration.id);
      expect(cancelled.error).toBe(`Cancelled: iteration 1 of loop "each" (run ${failed.id}) failed.`);
      expect(stepOf(cancelled, 'wait')).toMatchObject({ status: 'error', error: cancelled.error });
    }
  }, 90_000);

  it('fails the step when items is not a JSON array or has too many', async () => {
    const workflowId = await castingLoop({});
    const tooMany = await run(
      workflowId,
      Array.from({ length: LOOP_MAX_ITEMS + 1 }, () => 0),
    );
    expect(tooMany.status).toBe('errored');
    expect(stepOf(tooMany, 'each')!.error).toBe(
      `items gave ${LOOP_MAX_ITEMS + 1} items; a loop takes at most ${LOOP_MAX_ITEMS}.`,
    );
    expect(await childrenOf(tooMany.id, 'each')).toEqual([]);
    const object = await run(workflowId, { a: 1 });
    expect(stepOf(object, 'each')!.error).toBe('items must give a JSON array; it gave "{\\"a\\":1}".');
    const empty = await run(workflowId, []);
    expect(empty.status).toBe('complete');
    expect(stepOf(empty, 'each')!.output).toEqual({ results: '[]', count: '0', failed: '0' });
  }, 60_000);

  it('refuses a body that leads out of the loop at publish, naming the node', async () => {
    const created = await createWorkflow(
      api,
      projectId,
      {
        nodes: [
          nodes.trigger('t'),
          nodes.loop('each', '[1]'),
          nodes.delay('body', 1),
          nodes.delay('after', 1),
        ],
        edges: [
          edge('e1', 't', 'each'),
          edge('e2', 'each', 'body', 'body'),
          edge('e3', 'body', 'after'),
          edge('e4', 'each', 'after', 'done'),
        ],
      },
      { publish: false },
    );
    const published = await api.POST('/api/v1/workflows/{id}/publish', { params: { path: { id: created } } });
    expect(published.response.status).toBe(400);
    expect(published.error?.error.code).toBe('invalid_workflow');
    expect(published.error?.error.details?.issues).toEqual([
      expect.objectContaining({ path: 'edges.3.target', edgeId: 'e4', nodeId: 'each' }),
    ]);
  });

  it('terminates the iterations of a cancelled run', async () => {
    const workflowId = await workflow({
      nodes: [
        nodes.trigger('t'),
        nodes.loop('each', '{{trigger}}', { concurrency: 2 }),
        nodes.delay('wait', 60),
      ],
      edges: [edge('e1', 't', 'each'), edge('e2', 'each', 'wait', 'body')],
    });
    const started = expectData(await startRun(api, workflowId, { input: '[1,2,3]' }), 201);
    await waitFor(
      async () => {
        const statuses = await iterationStatuses(started.id, 'each');
        return statuses.size === 2 && [...statuses.values()].every((status) => status === 'waiting')
          ? true
          : undefined;
      },
      { what: 'two iterations to wait', timeoutMs: 30_000 },
    );
    const cancelled = await api.POST('/api/v1/runs/{id}/cancel', {
      params: { path: { id: started.id } },
      body: { reason: 'enough' },
    });
    expect(cancelled.response.status).toBe(200);
    const done = await finished(api, started.id);
    expect(done.status).toBe('terminated');
    expect(Object.fromEntries(await iterationStatuses(started.id, 'each'))).toEqual({
      0: 'terminated',
      1: 'terminated',
    });
  }, 60_000);

  it('stops the iterations still going when another branch fails the run', async () => {
    const workflowId = await workflow({
      nodes: [
        nodes.trigger('t'),
        nodes.loop('each', '{{trigger}}', { concurrency: 2 }),
        nodes.delay('wait', 60),
        nodes.delay('pause', 1),
        nodes.database('bad', databaseId, "SELECT CAST('oops' AS INTEGER)"),
      ],
      edges: [
        edge('e1', 't', 'each'),
        edge('e2', 'each', 'wait', 'body'),
        edge('e3', 't', 'pause'),
        edge('e4', 'pause', 'bad'),
      ],
    });
    const done = await run(workflowId, [1, 2, 3]);
    expect(done.status).toBe('errored');
    expect(stepOf(done, 'bad')!.status).toBe('error');
    await waitFor(
      async () => {
        const statuses = [...(await iterationStatuses(done.id, 'each')).values()];
        return statuses.length === 2 && statuses.every((status) => status === 'terminated')
          ? true
          : undefined;
      },
      { what: 'the iterations to be stopped' },
    );
    const [first] = await childrenOf(done.id, 'each');
    expect((await read(first!.id)).error).toBe(
      `Cancelled: run ${done.id}, which this iteration belongs to, ended first.`,
    );
  }, 60_000);

  it('processes every one of 1,000 SQL rows when the runner is SIGKILLed midway; finished iterations never run again', async () => {
    const workflowId = await workflow({
      nodes: [
        nodes.trigger('t'),
        nodes.database('query', databaseId, 'SELECT range AS n FROM range(1000)'),
        nodes.loop('each', '{{nodes.query.rows}}', { concurrency: 8 }),
        nodes.database(
          'insert',
          databaseId,
          'INSERT INTO processed VALUES (CAST(? AS BIGINT), CAST(? AS INTEGER), ?)',
          ['{{loop.item.n}}', '{{loop.index}}', '{{trigger.tag}}'],
        ),
      ],
      edges: [
        edge('e1', 't', 'query'),
        edge('e2', 'query', 'each'),
        edge('e3', 'each', 'insert', 'body'),
        edge('e4', 'insert', 'each', undefined, 'done'),
      ],
    });
    const started = expectData(await startRun(api, workflowId, { input: '{"tag": "crash"}' }), 201);
    const runId = started.id;
    const completeAt = async () => {
      const { rows } = await db.query<{ iteration: number }>(
        `SELECT iteration FROM runner.runs WHERE parent_run_id = $1 AND status = 'complete'`,
        [runId],
      );
      return rows.map((row) => row.iteration);
    };
    await waitFor(async () => ((await completeAt()).length >= 150 ? true : undefined), {
      what: '150 iterations to complete',
      timeoutMs: 120_000,
      intervalMs: 20,
    });
    await runner.kill('SIGKILL');
    // No runner is alive: what was complete at the kill is final and must never run again.
    const finishedBefore = await completeAt();
    const unfinishedBefore = [...(await iterationStatuses(runId, 'each'))].filter(
      ([, status]) => status !== 'complete',
    );
    // Inserts checkpointed `running` when the runner died: cut off mid-flight, they run again.
    const { rows: cutOff } = await db.query<{ iteration: number; id: string }>(
      `SELECT r.iteration, r.id FROM runner.runs r
         JOIN runner.run_steps s ON s.run_id = r.id AND s.node_id = 'insert' AND s.status = 'running'
        WHERE r.parent_run_id = $1`,
      [runId],
    );
    expect(finishedBefore.length).toBeLessThan(1000);

    runner = await stack.startService('runner', RUNNER_ENV, 'runner-after-crash');
    const done = await finished(api, runId, { timeoutMs: 180_000, intervalMs: 500 });
    expect(done.status).toBe('complete');
    expect(stepOf(done, 'each')!.output).toMatchObject({ count: '1000', failed: '0' });

    const counts = new Map(
      (await sql(`SELECT n, count(*) FROM processed WHERE tag = 'crash' GROUP BY n`)).map(([n, count]) => [
        Number(n),
        Number(count),
      ]),
    );
    // Every item was processed…
    expect([...counts.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 1000 }, (_, n) => n));
    // …an iteration complete before the crash exactly once…
    expect(finishedBefore.filter((iteration) => counts.get(iteration) !== 1)).toEqual([]);
    // …and only an insert the crash cut off (at most one per iteration unfinished then) ran twice.
    for (const { iteration, id } of cutOff) {
      expect(counts.get(iteration)).toBeGreaterThanOrEqual(1);
      expect(stepOf(await read(id), 'insert')).toMatchObject({ status: 'done', error: null });
    }
    const twice = [...counts].filter(([, count]) => count > 1);
    expect(twice.every(([, count]) => count === 2)).toBe(true);
    expect(twice.length).toBeLessThanOrEqual(unfinishedBefore.length);
    const iterations = await childrenOf(runId, 'each', 100);
    expect(iterations.map((child) => child.iteration)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect(new Set(iterations.map((child) => child.status))).toEqual(new Set(['complete']));
    // Never more than `concurrency` iterations unfinished at once, crash or not: at each iteration's
    // start, the iterations started and not yet final (by the one host's clock).
    const { rows: overlap } = await db.query<{ most: number }>(
      `SELECT max((SELECT count(*) FROM runner.runs o
                   WHERE o.parent_run_id = r.parent_run_id AND o.created_at <= r.created_at
                     AND o.finished_at > r.created_at))::int AS most
         FROM runner.runs r WHERE r.parent_run_id = $1`,
      [runId],
    );
    expect(overlap[0]!.most).toBeLessThanOrEqual(8);
  }, 300_000);
});
