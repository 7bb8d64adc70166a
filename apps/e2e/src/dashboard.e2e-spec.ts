import {
  chainOf,
  createAgent,
  createConnection,
  createMember,
  createOrganization,
  createProject,
  createWorkflow,
  expectData,
  HttpTarget,
  type MemberFixture,
  nodes,
  type OrganizationFixture,
  runReaches,
  type RunStatus,
  ScriptedModel,
  startRun,
  type TestDiagram,
  TestStack,
  waitFor,
} from '#testing';

/** A condition whose pattern comes from the run's input: `(` is not a regular expression. */
const matching = (id: string) =>
  nodes.condition(id, [{ left: 'x', operator: 'matches', right: '{{trigger.pattern}}' }]);

/**
 * The dashboard, against an organization whose runs, failures, approvals and broken triggers were
 * made for it, and with one of its services stopped. Its own stack: a service is frozen (SIGSTOP)
 * mid-file, which the shared stack's other tests must not see.
 */
describe('dashboard', () => {
  let stack: TestStack;
  let model: ScriptedModel;
  let target: HttpTarget;
  let org: OrganizationFixture;
  let member: MemberFixture;
  let projectId: string;
  let connectionId: string;

  beforeAll(async () => {
    model = await ScriptedModel.start();
    target = await HttpTarget.start();
    stack = await TestStack.start({ ...model.gatewayEnv, ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true' });
    org = await createOrganization(stack.description);
    member = await createMember(stack.description, org.organizationId, 'admin');
    projectId = await createProject(org.api, 'Operations');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await Promise.all([model?.stop(), target?.stop()]);
  });

  const published = (name: string, diagram: TestDiagram) =>
    createWorkflow(org.api, projectId, diagram, { name });

  async function runTo(workflowId: string, input: string, statuses: RunStatus[]): Promise<string> {
    const started = await startRun(org.api, workflowId, { input });
    expect(started.response.status).toBe(201);
    await runReaches(org.api, started.data!.id, statuses);
    return started.data!.id;
  }

  const dashboardOf = async () => expectData(await org.api.GET('/api/v1/dashboard'), 200);

  it('shows what needs attention, the recent runs and the counts, for this organization only', async () => {
    const healthy = await published('Healthy', chainOf(nodes.trigger('t'), nodes.alwaysTrue('ok')));
    const failing = await published('Failing', chainOf(nodes.trigger('t'), matching('bad')));
    ({ connectionId } = await createConnection(stack.description, org.organizationId, 'http'));
    const agent = await createAgent(org.api, {
      name: 'careful',
      apps: [
        { connectionId, integrationId: 'http', actions: ['http__request'], approvals: ['http__request'] },
      ],
    });
    const asking = await published(
      'Asking',
      chainOf(nodes.trigger('t'), nodes.agent('ask', agent.id, 'Tell the team.')),
    );
    const hook = await createConnection(stack.description, org.organizationId, 'webhook');
    const hooked = await published('Hooked', {
      nodes: [nodes.webhook('hook', hook.connectionId)],
      edges: [],
    });
    await createWorkflow(org.api, projectId, chainOf(nodes.trigger('t')), {
      name: 'Draft only',
      publish: false,
    });

    const dayBefore = new Date().toISOString().slice(0, 10);
    const healthyRuns = [await runTo(healthy, '', ['complete']), await runTo(healthy, '', ['complete'])];
    const failed = await runTo(failing, '{"pattern": "("}', ['errored']);
    model.queue({
      toolCalls: [{ name: 'http__request', arguments: { method: 'POST', url: `${target.url}/ask` } }],
    });
    const waiting = await runTo(asking, '', ['waiting']);
    // The hooked workflow's trigger breaks when its connection is deleted.
    expect((await member.api.raw.delete(`/app/connections/${hook.connectionId}`)).status).toBe(200);

    const dashboard = await dashboardOf();

    expect(dashboard.activity).toHaveLength(7);
    // Today is last, whichever side of a UTC midnight this test ran; the four runs are this week's.
    expect([dayBefore, new Date().toISOString().slice(0, 10)]).toContain(dashboard.activity.at(-1)?.date);
    expect(dashboard.activity.reduce((sum, day) => sum + day.runs, 0)).toBe(4);
    const days = dashboard.activity.map((day) => Date.parse(day.date));
    expect(days.slice(1).map((day, index) => day - days[index]!)).toEqual(Array(6).fill(86_400_000));

    expect(dashboard.approvals).toEqual([
      {
        runId: waiting,
        workflowId: asking,
        workflowName: 'Asking',
        tool: 'http__request',
        expiresAt: expect.any(String),
      },
    ]);
    expect(dashboard.failures).toEqual([
      {
        runId: failed,
        workflowId: failing,
        workflowName: 'Failing',
        step: 'bad',
        error: expect.stringMatching(/regular expression/),
        at: expect.any(String),
      },
    ]);
    expect(Date.now() - Date.parse(dashboard.failures[0]!.at)).toBeLessThan(60_000);
    expect(dashboard.triggers).toEqual([
      {
        triggerNodeId: 'hook',
        connectionId: hook.connectionId,
        status: 'error',
        error: expect.any(String),
        health: null,
        workflowId: hooked,
        workflowName: 'Hooked',
      },
    ]);
    expect(dashboard.runs.map((run) => run.id)).toEqual([waiting, failed, ...healthyRuns.reverse()]);
    expect(dashboard.runs[0]).toEqual({
      id: waiting,
      workflowId: asking,
      workflowName: 'Asking',
      projectId,
      projectName: 'Operations',
      trigger: 'api',
      status: 'waiting',
      createdAt: expect.any(String),
    });
    expect(dashboard.counts).toEqual({
      projects: 1,
      workflows: 5,
      published: 4,
      connections: 1,
      runsThisWeek: 4,
    });
    expect(dashboard.stale).toEqual([]);

    // Names are current: a renamed workflow reads under its new name everywhere.
    const rename = await org.api.PATCH('/api/v1/workflows/{id}', {
      params: { path: { id: failing } },
      body: { name: 'Renamed' },
    });
    expect(rename.response.status).toBe(200);
    const renamed = await dashboardOf();
    expect(renamed.failures[0]!.workflowName).toBe('Renamed');
    expect(renamed.runs.find((run) => run.id === failed)!.workflowName).toBe('Renamed');

    // Deleting the waiting workflow ends its run: nothing of it waits for anyone any more.
    const deleted = await org.api.DELETE('/api/v1/workflows/{id}', { params: { path: { id: asking } } });
    expect(deleted.response.status).toBe(200);
    expect((await org.api.GET('/api/v1/dashboard')).data?.approvals).toEqual([]);

    const other = await createOrganization(stack.description);
    const empty = (await other.api.GET('/api/v1/dashboard')).data!;
    expect(empty).toMatchObject({ approvals: [], failures: [], triggers: [], runs: [], stale: [] });
    expect(empty.counts).toEqual({
      projects: 0,
      workflows: 0,
      published: 0,
      connections: 0,
      runsThisWeek: 0,
    });
    expect(empty.activity.map((day) => day.runs)).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });

  it('answers in bounded time with a frozen service: stale but marked when read before, 503 when never', async () => {
    const agent = await createAgent(org.api, {
      name: 'patient',
      apps: [
        { connectionId, integrationId: 'http', actions: ['http__request'], approvals: ['http__request'] },
      ],
    });
    const asking = await published(
      'Asking again',
      chainOf(nodes.trigger('t'), nodes.agent('ask', agent.id, 'Tell the team.')),
    );
    model.queue({
      toolCalls: [{ name: 'http__request', arguments: { method: 'POST', url: `${target.url}/ask` } }],
    });
    const waiting = await runTo(asking, '', ['waiting']);
    const before = await dashboardOf();
    expect(before.approvals).toEqual([expect.objectContaining({ runId: waiting, workflowId: asking })]);
    const never = await createOrganization(stack.description);
    const agentService = stack.processes.get('agent')!;
    agentService.child.kill('SIGSTOP');
    try {
      const startedAt = Date.now();
      const answer = await org.api.GET('/api/v1/dashboard');
      // The services' own request timeout is 10 s: the dashboard gave up after its 2 s budget.
      expect(Date.now() - startedAt).toBeLessThan(3_500);
      const stale = expectData(answer, 200);
      expect(stale.stale).toEqual([{ part: 'agents', asOf: expect.any(String) }]);
      expect(Date.parse(stale.stale[0]!.asOf!)).toBeLessThan(startedAt);
      expect(stale.approvals).toEqual(before.approvals);
      expect(stale.counts).toEqual(before.counts);

      const unavailable = await never.api.GET('/api/v1/dashboard');
      expect(unavailable.response.status).toBe(503);
      expect(unavailable.error?.error).toMatchObject({
        code: 'service_unavailable',
        details: { parts: ['agents'] },
      });
    } finally {
      agentService.child.kill('SIGCONT');
    }
    await waitFor(
      async () => {
        const current = await org.api.GET('/api/v1/dashboard');
        return current.response.status === 200 && current.data?.stale.length === 0 ? current : undefined;
      },
      { what: 'the dashboard to be current again' },
    );
  });
});
