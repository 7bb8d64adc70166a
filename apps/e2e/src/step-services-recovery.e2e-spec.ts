import {
  chainOf,
  createAgent,
  createConnection,
  createDatabaseIn,
  createOrganization,
  createProject,
  createWorkflow,
  finished,
  HttpTarget,
  nodes,
  type OrganizationFixture,
  rowsOf,
  ScriptedModel,
  startRun,
  type TestDiagram,
  TestStack,
  waitFor,
} from '#testing';

/**
 * A step whose service dies or is away while the step needs it: the agent service killed while its
 * model answers, the events service killed while an action's app holds the call, the database
 * service down when a database step starts. Each run must complete once the service is back, within
 * seconds, not fail nor wait out the step's own timeout (minutes for an agent). Found by the chaos
 * trials (docs/reliability.md).
 */
describe('steps whose service dies', () => {
  let stack: TestStack;
  let model: ScriptedModel;
  let org: OrganizationFixture;
  let projectId: string;

  beforeAll(async () => {
    model = await ScriptedModel.start();
    stack = await TestStack.start({ ...model.gatewayEnv, ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true' });
    org = await createOrganization(stack.description);
    projectId = await createProject(org.api, 'Step recovery');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await model?.stop();
  });

  async function start(diagram: TestDiagram): Promise<string> {
    const workflowId = await createWorkflow(org.api, projectId, diagram, { name: 'Recovery' });
    const started = await startRun(org.api, workflowId, { input: '{"tag": "x"}' });
    expect(started.response.status).toBe(201);
    return started.data!.id;
  }

  const ended = (runId: string) => finished(org.api, runId, { timeoutMs: 45_000, intervalMs: 200 });

  it('runs an agent step again when the agent service dies while the model answers', async () => {
    const agent = await createAgent(org.api, { name: 'slow-thinker', instructions: 'Answer.' });
    const calls = model.calls.length;
    model.queue({ delayMs: 60_000, text: 'never heard' }, { text: 'Answered after the restart.' });
    const runId = await start(chainOf(nodes.trigger('t'), nodes.agent('ask', agent.id)));
    await waitFor(() => (model.calls.length > calls ? true : undefined), { what: 'the model to be called' });

    await stack.processes.get('agent')!.kill('SIGKILL');
    await stack.startService('agent');

    const run = await ended(runId);
    expect(run.status).toBe('complete');
    expect(run.reply).toBe('Answered after the restart.');
    expect(model.calls.length - calls).toBe(2);
  });

  it('calls an action again, with the same idempotency key, when the events service dies during the call', async () => {
    const target = await HttpTarget.start();
    try {
      let release!: () => void;
      target.respond(
        '/held',
        { until: new Promise<void>((resolve) => (release = resolve)) },
        { body: { ok: 1 } },
      );
      const { connectionId } = await createConnection(stack.description, org.organizationId, 'http');
      const runId = await start(
        chainOf(
          nodes.trigger('t'),
          nodes.action(
            'call',
            'http__request',
            { method: 'POST', url: `${target.url}/held` },
            { connectionId },
          ),
        ),
      );
      await waitFor(() => (target.requestsTo('/held').length > 0 ? true : undefined), {
        what: 'the action to reach the app',
      });

      await stack.processes.get('events')!.kill('SIGKILL');
      await stack.startService('events');
      release();

      const run = await ended(runId);
      expect(run.status).toBe('complete');
      const keys = target.requestsTo('/held').map((request) => request.headers['idempotency-key']);
      expect(keys).toEqual([`${runId}:call:1`, `${runId}:call:1`]);
    } finally {
      await target.stop();
    }
  });

  it('waits for the database service to be back when a database step starts while it is down', async () => {
    const databaseId = await createDatabaseIn(org.api, 'recovery');
    await rowsOf(org.api, databaseId, [{ sql: 'CREATE TABLE seen (tag VARCHAR)', params: [] }]);
    await stack.processes.get('database')!.kill('SIGKILL');
    const runId = await start(
      chainOf(
        nodes.trigger('t'),
        nodes.database('store', databaseId, 'INSERT INTO seen VALUES (?)', ['{{trigger.tag}}']),
      ),
    );
    await waitFor(
      async () => {
        const run = await org.api.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } });
        return run.data?.steps.some((step) => step.nodeId === 'store' && step.status === 'running')
          ? true
          : undefined;
      },
      { what: 'the database step to be waiting for its service' },
    );
    await stack.startService('database');

    const run = await ended(runId);
    expect(run.status).toBe('complete');
    const [rows] = await rowsOf(org.api, databaseId, [{ sql: 'SELECT tag FROM seen', params: [] }]);
    expect(rows).toEqual([['x']]);
  });
});
