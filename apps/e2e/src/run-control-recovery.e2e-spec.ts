import {
  type ApiClient,
  chainOf,
  createConnection,
  createOrganization,
  createProject,
  createWorkflow,
  expectData,
  finished,
  HttpTarget,
  nodes,
  runReaches,
  type ServiceProcess,
  startRun,
  type TestDiagram,
  type TestNode,
  TestStack,
  waitFor,
} from '#testing';
import pg from 'pg';

/**
 * Run control across crashes of the runner: a run asked to pause, a run rolling back, and a run
 * cancelled while the runner holding it is dead. A stack of its own, with a short lease so a dead
 * runner's runs are taken over in seconds.
 */

const RUNNER_ENV = {
  RUNNER_LEASE_MS: '2000',
  RUNNER_SWEEP_INTERVAL_MS: '200',
  RUNNER_REQUEUE_AFTER_MS: '1000',
  RUNNER_SHUTDOWN_GRACE_MS: '500',
};

describe('run control across runner crashes', () => {
  let stack: TestStack;
  let api: ApiClient;
  let projectId: string;
  let connectionId: string;
  let target: HttpTarget;
  let db: pg.Client;
  let runners: ServiceProcess[] = [];
  let paths = 0;
  const releases = new Set<() => void>();

  const path = (name: string) => `/${name}-${(paths += 1)}`;
  const callsTo = (at: string) => target.requestsTo(at).length;

  /** The first call to the path is held until released; later calls are answered at once. */
  const heldOnce = (at: string) => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    target.respond(at, { until: released, body: { held: at } }, { body: { at } });
    releases.add(release);
    return release;
  };

  const call = (id: string, at: string, undo?: string): TestNode =>
    nodes.action(
      id,
      'http__request',
      { method: 'POST', url: `${target.url}${at}`, body: id },
      {
        connectionId,
        ...(undo === undefined
          ? {}
          : {
              compensate: { action: 'http__request', input: { method: 'POST', url: `${target.url}${undo}` } },
            }),
      },
    );

  const workflow = (diagram: TestDiagram) => createWorkflow(api, projectId, diagram, { name: 'Control' });

  async function startRunner(name: string): Promise<ServiceProcess> {
    const runner = await stack.startService('runner', RUNNER_ENV, name);
    runners.push(runner);
    return runner;
  }

  /** The connections the stack's NATS server has now (its monitoring port). */
  async function natsConnections(): Promise<number> {
    const response = await fetch(`${stack.description.natsMonitorUrl}/connz?limit=1`);
    return ((await response.json()) as { total: number }).total;
  }

  const alive = () =>
    runners.filter((runner) => runner.child.exitCode === null && runner.child.signalCode === null);

  async function killRunners(): Promise<void> {
    for (const runner of alive()) await runner.kill('SIGKILL');
  }

  async function stored(runId: string): Promise<string> {
    const { rows } = await db.query<{ status: string }>('SELECT status FROM runner.runs WHERE id = $1', [
      runId,
    ]);
    return rows[0]!.status;
  }

  const reached = (at: string, count = 1) =>
    waitFor(() => (callsTo(at) >= count ? true : undefined), { what: `${count} call(s) to ${at}` });

  const ended = (runId: string) => finished(api, runId, { timeoutMs: 30_000 });

  beforeAll(async () => {
    // The actions call an app on this machine: private addresses are allowed, as on the shared stack.
    stack = await TestStack.start({
      ...RUNNER_ENV,
      RATE_LIMIT_PER_HOUR: '100000',
      ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    runners = [stack.processes.get('runner')!];
    const org = await createOrganization(stack.description);
    api = org.api;
    projectId = await createProject(api, 'Control');
    target = await HttpTarget.start();
    ({ connectionId } = await createConnection(stack.description, org.organizationId, 'http'));
    db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    for (const release of releases) release();
    await target?.stop();
    await db?.end();
    await stack?.stop();
  });

  afterEach(async () => {
    // Each test leaves exactly one runner running.
    const living = alive();
    for (const extra of living.slice(1)) await extra.stop();
    runners = living.slice(0, 1);
    if (runners.length === 0) await startRunner(`runner-${Date.now()}`);
  });

  it('pauses a run whose runner was killed while it waited for the pause, and resumes it', async () => {
    const [slow, next] = [path('slow'), path('next')];
    heldOnce(slow);
    const run = expectData(
      await startRun(
        api,
        await workflow(chainOf(nodes.trigger('t'), call('slow', slow), call('next', next))),
        {},
      ),
      201,
    );
    await reached(slow);
    const pausing = expectData(
      await api.POST('/api/v1/runs/{id}/pause', { params: { path: { id: run.id } } }),
      200,
    );
    expect(pausing.status).toBe('waitingForPause');

    await killRunners();
    expect(await stored(run.id)).toBe('waitingForPause');
    await startRunner('runner-after-pause-crash');
    // The step the crash cut off runs again (at least once); nothing after it starts.
    const paused = await runReaches(api, run.id, ['paused'], { timeoutMs: 30_000 });
    expect(paused.steps.map((step) => [step.nodeId, step.status])).toEqual([
      ['t', 'done'],
      ['slow', 'done'],
    ]);
    expect(callsTo(slow)).toBe(2);
    expect(callsTo(next)).toBe(0);

    expectData(await api.POST('/api/v1/runs/{id}/resume', { params: { path: { id: run.id } } }), 200);
    expect((await ended(run.id)).status).toBe('complete');
    expect(callsTo(next)).toBe(1);
  }, 90_000);

  it('resumes a rollback whose runner was killed mid-compensation', async () => {
    const [a, undoA, b, undoB, fails] = ['a', 'undo-a', 'b', 'undo-b', 'fails'].map(path) as [
      string,
      string,
      string,
      string,
      string,
    ];
    heldOnce(undoB);
    target.respond(fails, { status: 500, body: { error: 'no' } });
    const workflowId = await workflow({
      ...chainOf(nodes.trigger('t'), call('a', a, undoA), call('b', b, undoB), call('f', fails)),
      settings: { onError: 'rollback' },
    });
    const run = expectData(await startRun(api, workflowId, {}), 201);
    await reached(undoB);
    expect(await stored(run.id)).toBe('rollingBack');

    await killRunners();
    await startRunner('runner-after-rollback-crash');
    const done = await ended(run.id);
    expect(done.status).toBe('errored');
    expect(done.steps.filter((step) => step.compensation).map((step) => [step.nodeId, step.status])).toEqual([
      ['b', 'done'],
      ['a', 'done'],
    ]);
    // b's compensation was cut off and ran again; a's ran once, after it.
    expect([callsTo(undoB), callsTo(undoA)]).toEqual([2, 1]);
  }, 90_000);

  it.each([false, true])(
    'cancels a run whose runner is dead (rollback: %s): no step after it runs once a runner is back',
    async (rollback) => {
      const [a, undoA, slow, next] = [path('a'), path('undo-a'), path('slow'), path('next')];
      heldOnce(slow);
      const workflowId = await workflow(
        chainOf(nodes.trigger('t'), call('a', a, undoA), call('slow', slow), call('next', next)),
      );
      const run = expectData(await startRun(api, workflowId, {}), 201);
      await reached(slow);
      const standby = await startRunner(`standby-${String(rollback)}`);
      const connected = await natsConnections();
      await runners[0]!.kill('SIGKILL');
      runners = [standby];
      // Until the NATS server has seen the dead runner's connection close, a request may still be
      // handed to its subscription and go unanswered.
      await waitFor(async () => ((await natsConnections()) < connected ? true : undefined), {
        what: "the dead runner's NATS connection to close",
      });

      const cancelled = expectData(
        await api.POST('/api/v1/runs/{id}/cancel', {
          params: { path: { id: run.id } },
          body: { reason: 'runner down', rollback },
        }),
        200,
      );
      // The answer reads the run after the rollback's job is published: a runner may have finished
      // that rollback already (undoing `a` is one quick call).
      expect(rollback ? ['rollingBack', 'terminated'] : ['terminated']).toContain(cancelled.status);
      const done = await ended(run.id);
      expect(done.status).toBe('terminated');
      expect(
        done.steps.filter((step) => !step.compensation).map((step) => [step.nodeId, step.status]),
      ).toEqual([
        ['t', 'done'],
        ['a', 'done'],
        ['slow', 'error'],
      ]);
      expect(callsTo(undoA)).toBe(rollback ? 1 : 0);
      // The dead runner's lease runs out and the sweeper looks again: still nothing runs after it.
      await waitFor(
        () =>
          Date.now() - Date.parse(done.createdAt) > 2 * Number(RUNNER_ENV.RUNNER_LEASE_MS) ? true : undefined,
        {
          what: 'the dead runner lease to run out',
        },
      );
      expect((await ended(run.id)).status).toBe('terminated');
      expect(callsTo(next)).toBe(0);
      expect(callsTo(slow)).toBe(1);
    },
    90_000,
  );
});
