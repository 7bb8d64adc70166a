import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import {
  ApiClient,
  chainOf,
  createConnection,
  createOrganization,
  createProject,
  createWorkflow,
  expectData,
  finished,
  nodes,
  runReaches,
  type ServiceProcess,
  startExtraGateway,
  startRun,
  type TestDiagram,
  TestStack,
  waitFor,
  type WorkflowRun,
} from '#testing';
import pg from 'pg';

/**
 * Flow control and fairness (docs/flow-control.md): a workflow's concurrency by key, priority,
 * throttle and debounce, held runs under cancel, pause and a runner SIGKILLed, and one
 * organization's backlog not holding back another's runs. A stack of its own: a test kills the
 * runner, and the runner's slots and the organizations' share of the queue are small, so that a
 * backlog forms with a few hundred runs.
 */

const RUNNER_ENV = {
  RUNNER_LEASE_MS: '2000',
  RUNNER_SWEEP_INTERVAL_MS: '200',
  RUNNER_REQUEUE_AFTER_MS: '1000',
  RUNNER_SHUTDOWN_GRACE_MS: '500',
  RUNNER_CONCURRENCY: '16',
  RUNNER_INLINE_RESERVE: '4',
  RUNNER_ORGANIZATION_SHARE: '4',
};

/**
 * The app the workflows call: counts the calls in flight per `key` (the highest count seen is the
 * most runs of a key that were in their call at once), answers each after `delayMs` or when released.
 */
class CountingApp {
  readonly calls: Array<{ key: string; at: number }> = [];
  readonly maxInFlight = new Map<string, number>();
  private readonly inFlight = new Map<string, number>();
  private readonly held: Array<() => void> = [];
  holding = false;
  delayMs = 30;
  private readonly server: Server;

  constructor() {
    this.server = createServer((request, response) => {
      request.resume();
      const key = new URL(request.url ?? '/', 'http://app').searchParams.get('key') ?? '';
      this.calls.push({ key, at: Date.now() });
      const now = (this.inFlight.get(key) ?? 0) + 1;
      this.inFlight.set(key, now);
      this.maxInFlight.set(key, Math.max(this.maxInFlight.get(key) ?? 0, now));
      let done = false;
      const end = () => {
        if (done) return;
        done = true;
        this.inFlight.set(key, (this.inFlight.get(key) ?? 1) - 1);
      };
      // A runner killed mid-call closes its connection: the call is no longer in flight.
      response.on('close', end);
      const answer = () => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ key }));
        end();
      };
      if (this.holding) this.held.push(answer);
      else setTimeout(answer, this.delayMs);
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  inFlightOf(key: string): number {
    return this.inFlight.get(key) ?? 0;
  }

  release(): void {
    this.holding = false;
    for (const answer of this.held.splice(0)) answer();
  }

  async stop(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

describe('flow control', () => {
  let stack: TestStack;
  let api: ApiClient;
  let organizationId: string;
  let apiKey: string;
  let projectId: string;
  let connectionId: string;
  let app: CountingApp;
  let db: pg.Client;
  let runner: ServiceProcess;

  /** t → call, the call's key `{{trigger.key}}`, with `settings`. */
  const calling = (settings: TestDiagram['settings'], name = 'Calls') =>
    createWorkflow(
      api,
      projectId,
      {
        ...chainOf(
          nodes.trigger('t'),
          nodes.httpCall('call', `${app.url}/work?key={{trigger.key}}`, { connectionId }),
        ),
        settings,
      },
      { name },
    );

  const start = async (workflowId: string, input: unknown, client = api) =>
    expectData(await startRun(client, workflowId, { input: JSON.stringify(input) }), 201);

  const read = async (runId: string) =>
    expectData(await api.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } }), 200);

  /** Pull requests waiting at the runner's consumer of run jobs (NATS monitoring). */
  const openPulls = async () => {
    const info = (await (
      await fetch(`${stack.description.natsMonitorUrl}/jsz?accounts=true&streams=true&consumers=true`)
    ).json()) as {
      account_details?: Array<{
        stream_detail?: Array<{ consumer_detail?: Array<{ name: string; num_waiting?: number }> }>;
      }>;
    };
    const consumers = (info.account_details ?? []).flatMap((account) =>
      (account.stream_detail ?? []).flatMap((stream) => stream.consumer_detail ?? []),
    );
    const runner = consumers.filter((consumer) => consumer.name === 'runner');
    if (runner.length === 0) throw new Error("no consumer named runner in the server's monitoring");
    return runner.reduce((sum, consumer) => sum + (consumer.num_waiting ?? 0), 0);
  };

  const allFinished = (ids: string[], timeoutMs = 60_000) =>
    Promise.all(ids.map((id) => finished(api, id, { timeoutMs, intervalMs: 100 })));

  beforeAll(async () => {
    stack = await TestStack.start({
      ...RUNNER_ENV,
      RATE_LIMIT_PER_HOUR: '1000000',
      ORGANIZATION_RATE_LIMIT_PER_HOUR: '1000000',
      ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    runner = stack.processes.get('runner')!;
    app = new CountingApp();
    await app.start();
    const org = await createOrganization(stack.description);
    api = org.api;
    organizationId = org.organizationId;
    apiKey = org.apiKey;
    projectId = await createProject(api, 'Flow');
    ({ connectionId } = await createConnection(stack.description, organizationId, 'http'));
    db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    await Promise.all([db?.end(), app?.stop()]);
    await stack?.stop();
  });

  it('runs at most 3 per key at once with 4 keys and 60 starts, and finishes all 60', async () => {
    const workflowId = await calling({ concurrency: { limit: 3, key: '{{trigger.key}}' } }, 'Per customer');
    const keys = ['k0', 'k1', 'k2', 'k3'].map((key) => `${workflowId}-${key}`);
    app.delayMs = 150;
    const started = await Promise.all(
      Array.from({ length: 60 }, (_, index) => start(workflowId, { key: keys[index % 4] })),
    );
    // Sampled while they run, beside the app's own count of calls in flight.
    let samples = 0;
    let mostRunning = 0;
    const sampling = setInterval(() => {
      void db
        .query<{ running: string }>(
          `SELECT count(*) AS running FROM runner.runs
            WHERE workflow_id = $1 AND status = 'running' GROUP BY concurrency_key`,
          [workflowId],
        )
        .then(
          ({ rows }) => {
            samples += 1;
            for (const row of rows) mostRunning = Math.max(mostRunning, Number(row.running));
          },
          () => undefined,
        );
    }, 50);
    try {
      const done = await allFinished(started.map((run) => run.id));
      expect(done.map((run) => run.status)).toEqual(Array(60).fill('complete'));
    } finally {
      clearInterval(sampling);
      app.delayMs = 30;
    }
    expect(samples).toBeGreaterThan(5);
    expect(mostRunning).toBeGreaterThan(0);
    expect(mostRunning).toBeLessThanOrEqual(3);
    for (const key of keys) expect(app.maxInFlight.get(key)).toBe(3);
    expect(app.calls.filter((call) => keys.includes(call.key))).toHaveLength(60);
  }, 120_000);

  it('says why a run waits, lets the highest priority through first, and gives a cancelled one up', async () => {
    const workflowId = await calling(
      { concurrency: { limit: 1 }, priority: '{{trigger.priority}}' },
      'One at a time',
    );
    const key = `${workflowId}-prio`;
    app.holding = true;
    const first = await start(workflowId, { key, priority: 0, order: 'first' });
    await waitFor(() => (app.inFlightOf(key) === 1 ? true : undefined), { what: 'the first call' });
    const low = await start(workflowId, { key, priority: 1 });
    const high = await start(workflowId, { key, priority: 5 });
    const cancelled = await start(workflowId, { key, priority: 9 });
    const middle = await start(workflowId, { key, priority: 3 });
    expect(low).toMatchObject({ status: 'queued', heldBy: 'concurrency', heldKey: '' });
    expect(await read(high.id)).toMatchObject({ status: 'queued', heldBy: 'concurrency', heldKey: '' });
    expect((await read(first.id)).heldBy).toBeUndefined();
    // The dashboard shows the line, per workflow, gate and key.
    const dashboard = expectData(await api.GET('/api/v1/dashboard'), 200);
    expect(dashboard.held).toContainEqual({
      workflowId,
      workflowName: 'One at a time',
      heldBy: 'concurrency',
      key: '',
      runs: 4,
      oldestAt: low.createdAt,
    });
    const cancel = await api.POST('/api/v1/runs/{id}/cancel', {
      params: { path: { id: cancelled.id } },
      body: {},
    });
    expect(cancel.response.status).toBe(200);
    expect((await read(cancelled.id)).status).toBe('terminated');

    const order = () =>
      db
        .query<{ id: string }>(
          `SELECT id FROM runner.runs WHERE workflow_id = $1 AND started_at IS NOT NULL ORDER BY started_at`,
          [workflowId],
        )
        .then(({ rows }) => rows.map((row) => row.id));
    app.release();
    await allFinished([first.id, high.id, middle.id, low.id]);
    expect(await order()).toEqual([first.id, high.id, middle.id, low.id]);
    expect((await read(cancelled.id)).steps.map((step) => step.nodeId)).toEqual(['t']);
  }, 60_000);

  it('keeps a paused held run waiting, and lets it through once resumed', async () => {
    const workflowId = await calling({ concurrency: { limit: 1 } }, 'Paused in line');
    const key = `${workflowId}-paused`;
    app.holding = true;
    const first = await start(workflowId, { key });
    await waitFor(() => (app.inFlightOf(key) === 1 ? true : undefined), { what: 'the first call' });
    const second = await start(workflowId, { key });
    const paused = await api.POST('/api/v1/runs/{id}/pause', { params: { path: { id: second.id } } });
    expect(paused.data?.status).toBe('paused');
    app.release();
    expect((await finished(api, first.id)).status).toBe('complete');
    // Its turn came while it was paused: it stays paused, and goes once resumed.
    expect((await read(second.id)).status).toBe('paused');
    const resumed = await api.POST('/api/v1/runs/{id}/resume', { params: { path: { id: second.id } } });
    expect(resumed.response.status).toBe(200);
    expect((await finished(api, second.id)).status).toBe('complete');
  }, 60_000);

  it("holds a rerun at its workflow's limit like any start, and lets it through when a slot frees", async () => {
    const workflowId = await calling({ concurrency: { limit: 1 } }, 'Rerun in line');
    const key = `${workflowId}-rerun`;
    const earlier = await start(workflowId, { key });
    expect((await finished(api, earlier.id)).status).toBe('complete');
    app.holding = true;
    const running = await start(workflowId, { key });
    await waitFor(() => (app.inFlightOf(key) === 1 ? true : undefined), { what: 'the running call' });
    const rerun = expectData(
      await api.POST('/api/v1/runs/{id}/rerun', { params: { path: { id: earlier.id } }, body: {} }),
      201,
    );
    expect(rerun).toMatchObject({
      status: 'queued',
      heldBy: 'concurrency',
      heldKey: '',
      rerunOf: earlier.id,
    });
    expect(app.inFlightOf(key)).toBe(1);
    app.release();
    const [runningDone, rerunDone] = await allFinished([running.id, rerun.id]);
    expect([runningDone?.status, rerunDone?.status]).toEqual(['complete', 'complete']);
    expect(app.maxInFlight.get(key)).toBe(1);
  }, 60_000);

  it('starts at most 2 runs per 2 s with a throttle, the rest waiting their turn', async () => {
    const workflowId = await calling({ throttle: { limit: 2, periodSeconds: 2 } }, 'Throttled');
    const key = `${workflowId}-throttle`;
    const started = await Promise.all(Array.from({ length: 5 }, () => start(workflowId, { key })));
    expect(started.filter((run) => run.heldBy === 'throttle').length).toBeGreaterThanOrEqual(3);
    const done = await allFinished(started.map((run) => run.id));
    expect(done.map((run) => run.status)).toEqual(Array(5).fill('complete'));
    const { rows } = await db.query<{ at: Date }>(
      `SELECT throttled_at AS at FROM runner.runs WHERE workflow_id = $1 ORDER BY throttled_at`,
      [workflowId],
    );
    const times = rows.map((row) => row.at.getTime());
    // Any three consecutive passes span at least the period.
    for (let index = 2; index < times.length; index += 1) {
      expect(times[index]! - times[index - 2]!).toBeGreaterThanOrEqual(2000);
    }
  }, 60_000);

  it('runs only the last of a burst of starts per key with a debounce; the others end terminated', async () => {
    const workflowId = await calling({ debounce: { periodSeconds: 1, key: '{{trigger.key}}' } }, 'Debounced');
    const [a, b] = [`${workflowId}-a`, `${workflowId}-b`];
    const burst: WorkflowRun[] = [];
    for (const key of [a, a, b, a]) burst.push((await start(workflowId, { key })) as WorkflowRun);
    expect(burst.map((run) => run.heldBy)).toEqual(['debounce', 'debounce', 'debounce', 'debounce']);
    const done = await allFinished(burst.map((run) => run.id));
    expect(done.map((run) => run.status)).toEqual(['terminated', 'terminated', 'complete', 'complete']);
    expect(done[0]!.error).toBe(
      `Replaced by run ${burst[1]!.id}: a later start with the same debounce key came within its period.`,
    );
    expect(done[1]!.error).toContain(burst[3]!.id);
    expect(app.calls.filter((call) => call.key === a)).toHaveLength(1);
    expect(app.calls.filter((call) => call.key === b)).toHaveLength(1);
  }, 60_000);

  it('holds no slot twice when the runner is SIGKILLed holding limited runs; all finish', async () => {
    const workflowId = await calling({ concurrency: { limit: 2 } }, 'Killed');
    const key = `${workflowId}-kill`;
    app.holding = true;
    const started = await Promise.all(Array.from({ length: 5 }, () => start(workflowId, { key })));
    await waitFor(() => (app.inFlightOf(key) === 2 ? true : undefined), { what: 'two calls in flight' });
    await runner.kill('SIGKILL');
    // The calls end with no runner to hear of them; the two runs still hold their slots, dead
    // runner or not, so the other three stay held.
    app.release();
    await waitFor(() => (app.inFlightOf(key) === 0 ? true : undefined), { what: 'the calls to end' });
    const { rows } = await db.query<{ held: string; running: string }>(
      `SELECT count(*) FILTER (WHERE held_by = 'concurrency') AS held,
              count(*) FILTER (WHERE status = 'running') AS running
         FROM runner.runs WHERE workflow_id = $1`,
      [workflowId],
    );
    expect(rows[0]).toEqual({ held: '3', running: '2' });
    runner = await stack.startService('runner', RUNNER_ENV, 'runner-after-kill');
    const done = await allFinished(
      started.map((run) => run.id),
      90_000,
    );
    expect(done.map((run) => run.status)).toEqual(Array(5).fill('complete'));
    expect(app.maxInFlight.get(key)).toBe(2);
  }, 120_000);

  it("lets another organization's runs through while one organization has a backlog", async () => {
    // Organization A queues 600 runs of 50 ms calls: with the 12 slots the queue's jobs may take, the
    // backlog lasts 2.5 s or more. B's runs, started one by one meanwhile, must not wait behind it.
    const backlog = await calling({}, 'Backlog');
    app.delayMs = 50;
    const other = await createOrganization(stack.description);
    const otherProject = await createProject(other.api, 'Other');
    const { connectionId: otherConnection } = await createConnection(
      stack.description,
      other.organizationId,
      'http',
    );
    const otherWorkflow = await createWorkflow(
      other.api,
      otherProject,
      chainOf(
        nodes.trigger('t'),
        nodes.httpCall('call', `${app.url}/work?key=other`, { connectionId: otherConnection }),
      ),
    );
    const queued = await Promise.all(
      Array.from({ length: 600 }, () => startRun(api, backlog, { input: '{"key":"backlog"}' })),
    );
    expect(queued.map((answer) => answer.response.status)).toEqual(Array(600).fill(201));
    const unfinishedOfA = async () => {
      const { rows } = await db.query<{ count: string }>(
        `SELECT count(*) FROM runner.runs WHERE workflow_id = $1 AND status NOT IN ('complete', 'errored', 'terminated')`,
        [backlog],
      );
      return Number(rows[0]!.count);
    };
    const held = await db.query<{ count: string }>(
      `SELECT count(*) FROM runner.runs WHERE workflow_id = $1 AND held_by = 'share'`,
      [backlog],
    );
    expect(Number(held.rows[0]!.count)).toBeGreaterThan(200);
    for (let index = 0; index < 3; index += 1) {
      const run = expectData(await startRun(other.api, otherWorkflow, {}, { Prefer: 'wait=30' }), 201);
      const done = run.status === 'complete' ? run : await runReaches(other.api, run.id, ['complete']);
      expect(done.status).toBe('complete');
      // B's run ended while most of A's backlog still waits.
      expect(await unfinishedOfA()).toBeGreaterThan(200);
    }
    app.delayMs = 30;
    await waitFor(async () => ((await unfinishedOfA()) === 0 ? true : undefined), {
      what: "A's backlog to drain",
      timeoutMs: 60_000,
      intervalMs: 200,
    });
  }, 120_000);

  it("gives each organization its plan's share of the queue: enterprise 4 times free's", async () => {
    // Every slot of the runner busy in a call held open: new runs go through the queue, where an
    // organization has RUNNER_ORGANIZATION_SHARE (4) × its plan's queueShare runs, the rest held.
    // The organizations are set up first: little happens while the calls are held (CI is slow).
    const organizationOn = async (plan: 'free' | 'enterprise') => {
      const org = await createOrganization(stack.description, { plan, name: plan });
      const project = await createProject(org.api, plan);
      const connection = await createConnection(stack.description, org.organizationId, 'http');
      const workflowId = await createWorkflow(
        org.api,
        project,
        chainOf(
          nodes.trigger('t'),
          nodes.httpCall('call', `${app.url}/work?key=${plan}`, { connectionId: connection.connectionId }),
        ),
      );
      return { ...org, workflowId };
    };
    const startTwenty = async ({
      api: client,
      organizationId: id,
      workflowId,
    }: {
      api: ApiClient;
      organizationId: string;
      workflowId: string;
    }) => {
      const runs: WorkflowRun[] = [];
      for (let index = 0; index < 20; index += 1) runs.push(await start(workflowId, {}, client));
      const { rows } = await db.query<{ held_by: string | null; count: string }>(
        `SELECT held_by, count(*) FROM runner.runs WHERE organization_id = $1 GROUP BY held_by`,
        [id],
      );
      return {
        api: client,
        runs,
        counts: Object.fromEntries(rows.map((row) => [row.held_by ?? 'queued', Number(row.count)])),
      };
    };
    const freeOrganization = await organizationOn('free');
    const enterpriseOrganization = await organizationOn('enterprise');
    const filler = await createWorkflow(
      api,
      projectId,
      chainOf(
        nodes.trigger('t'),
        nodes.action(
          'call',
          'http__request',
          { method: 'POST', url: `${app.url}/work?key=filler`, body: '{}', timeoutMs: 120_000 },
          { connectionId },
        ),
      ),
      { name: 'Filler' },
    );
    app.holding = true;
    const fillers = await Promise.all(Array.from({ length: 16 }, () => start(filler, {})));
    await waitFor(() => (app.inFlightOf('filler') === 16 ? true : undefined), {
      what: 'every slot to be busy',
      intervalMs: 50,
    });
    // A pull the runner sent while it had free slots would still take jobs past its slots (a job
    // delivered is worked on, not bounced): the runs start only once no pull is open.
    await waitFor(async () => ((await openPulls()) === 0 ? true : undefined), {
      what: "the runner's open pull to expire",
      timeoutMs: 60_000,
      intervalMs: 200,
    });
    const free = await startTwenty(freeOrganization);
    const enterprise = await startTwenty(enterpriseOrganization);
    expect(free.counts).toEqual({ queued: 4, share: 16 });
    expect(enterprise.counts).toEqual({ queued: 16, share: 4 });
    app.release();
    const done = await Promise.all(
      [
        { client: api, runs: fillers },
        { client: free.api, runs: free.runs },
        { client: enterprise.api, runs: enterprise.runs },
      ].flatMap(({ client, runs }) => runs.map((run) => finished(client, run.id, { timeoutMs: 60_000 }))),
    );
    expect(done.map((run) => run.status)).toEqual(Array(56).fill('complete'));
  }, 120_000);

  it("holds one organization's burst at the gateway while another is served, and answers all of it", async () => {
    const edge = await startExtraGateway(stack.description, 'gateway-lanes', {
      ORGANIZATION_REQUESTS_IN_FLIGHT: '2',
      METRICS_ON_PUBLIC_PORT: 'true',
    });
    const held = async () => {
      const text = await (await fetch(`${edge.baseUrl}/metrics`)).text();
      return Number(/^flowmesh_gateway_lane_waits_total (\d+)/m.exec(text)?.[1]);
    };
    const a = new ApiClient(edge.baseUrl, apiKey);
    const burst = async () => {
      const answers = await Promise.all(Array.from({ length: 30 }, () => a.GET('/api/v1/projects')));
      expect(answers.map((answer) => answer.response.status)).toEqual(Array(30).fill(200));
    };
    try {
      // Alone on this gateway, the organization's 30 requests go at once.
      expect(await held()).toBe(0);
      await burst();
      expect(await held()).toBe(0);

      // While another organization is served, all but 2 wait their turn, and all are answered.
      const other = await createOrganization(stack.description);
      const b = new ApiClient(edge.baseUrl, other.apiKey);
      let serving = true;
      expect((await b.GET('/api/v1/projects')).response.status).toBe(200);
      const otherRequests = (async () => {
        while (serving) expect((await b.GET('/api/v1/projects')).response.status).toBe(200);
      })();
      try {
        await burst();
      } finally {
        serving = false;
        await otherRequests;
      }
      expect(await held()).toBeGreaterThanOrEqual(28);
    } finally {
      await edge.process.stop();
    }
  }, 60_000);
});
