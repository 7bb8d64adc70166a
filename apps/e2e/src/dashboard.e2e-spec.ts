import {
  chainOf,
  createConnection,
  createMember,
  createOrganization,
  HttpTarget,
  type MemberFixture,
  nodes,
  type OrganizationFixture,
  ScriptedModel,
  TestStack,
  waitFor,
} from '#testing';

/** A condition whose pattern comes from the run's input: `(` is not a regular expression. */
const matching = (id: string) => ({
  id,
  data: {
    type: 'condition',
    properties: { conditions: [{ left: 'x', operator: 'matches', right: '{{trigger.pattern}}' }] },
  },
});

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
    projectId = (await org.api.post('/api/v1/projects', { name: 'Operations' })).body.id;
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await Promise.all([model?.stop(), target?.stop()]);
  });

  async function published(name: string, diagram: object): Promise<string> {
    const created = await org.api.post(`/api/v1/projects/${projectId}/workflows`, { name, diagram });
    expect(created.status).toBe(201);
    expect((await org.api.post(`/api/v1/workflows/${created.body.id}/publish`, {})).status).toBe(201);
    return created.body.id;
  }

  async function runTo(workflowId: string, input: string, statuses: string[]): Promise<string> {
    const started = await org.api.post(`/api/v1/workflows/${workflowId}/runs`, { input });
    expect(started.status).toBe(201);
    await waitFor(
      async () => {
        const run = (await org.api.get(`/api/v1/runs/${started.body.id}`)).body;
        return statuses.includes(run.status) ? run : undefined;
      },
      { what: `run ${started.body.id} to be ${statuses.join(' or ')}` },
    );
    return started.body.id;
  }

  it('shows what needs attention, the recent runs and the counts, for this organization only', async () => {
    const healthy = await published('Healthy', chainOf(nodes.trigger('t'), nodes.alwaysTrue('ok')));
    const failing = await published('Failing', chainOf(nodes.trigger('t'), matching('bad')));
    ({ connectionId } = await createConnection(stack.description, org.organizationId, 'http'));
    const agent = await org.api.post('/api/v1/agents', {
      name: 'careful',
      apps: [
        { connectionId, integrationId: 'http', actions: ['http__request'], approvals: ['http__request'] },
      ],
    });
    expect(agent.status).toBe(201);
    const asking = await published(
      'Asking',
      chainOf(nodes.trigger('t'), {
        id: 'ask',
        data: { type: 'agent', properties: { agentId: agent.body.id, task: 'Tell the team.' } },
      }),
    );
    const hook = await createConnection(stack.description, org.organizationId, 'webhook');
    const hooked = await published('Hooked', {
      nodes: [nodes.webhook('hook', hook.connectionId)],
      edges: [],
    });
    const draft = await org.api.post(`/api/v1/projects/${projectId}/workflows`, {
      name: 'Draft only',
      diagram: chainOf(nodes.trigger('t')),
    });
    expect(draft.status).toBe(201);

    const dayBefore = new Date().toISOString().slice(0, 10);
    const healthyRuns = [await runTo(healthy, '', ['complete']), await runTo(healthy, '', ['complete'])];
    const failed = await runTo(failing, '{"pattern": "("}', ['errored']);
    model.queue({
      toolCalls: [{ name: 'http__request', arguments: { method: 'POST', url: `${target.url}/ask` } }],
    });
    const waiting = await runTo(asking, '', ['waiting']);
    // The hooked workflow's trigger breaks when its connection is deleted.
    expect((await member.api.delete(`/app/connections/${hook.connectionId}`)).status).toBe(200);

    const answer = await org.api.get('/api/v1/dashboard');
    expect(answer.status).toBe(200);
    const dashboard = answer.body;

    expect(dashboard.activity).toHaveLength(7);
    // Today is last, whichever side of a UTC midnight this test ran; the four runs are this week's.
    expect([dayBefore, new Date().toISOString().slice(0, 10)]).toContain(dashboard.activity.at(-1).date);
    expect(dashboard.activity.reduce((sum: number, day: { runs: number }) => sum + day.runs, 0)).toBe(4);
    const days = dashboard.activity.map((day: { date: string }) => Date.parse(day.date));
    expect(days.slice(1).map((day: number, index: number) => day - days[index])).toEqual(
      Array(6).fill(86_400_000),
    );

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
    expect(Date.now() - Date.parse(dashboard.failures[0].at)).toBeLessThan(60_000);
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
    expect(dashboard.runs.map((run: { id: string }) => run.id)).toEqual([
      waiting,
      failed,
      ...healthyRuns.reverse(),
    ]);
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
    expect((await org.api.patch(`/api/v1/workflows/${failing}`, { name: 'Renamed' })).status).toBe(200);
    const renamed = (await org.api.get('/api/v1/dashboard')).body;
    expect(renamed.failures[0].workflowName).toBe('Renamed');
    expect(renamed.runs.find((run: { id: string }) => run.id === failed).workflowName).toBe('Renamed');

    // Deleting the waiting workflow ends its run: nothing of it waits for anyone any more.
    expect((await org.api.delete(`/api/v1/workflows/${asking}`)).status).toBe(200);
    expect((await org.api.get('/api/v1/dashboard')).body.approvals).toEqual([]);

    const other = await createOrganization(stack.description);
    const empty = (await other.api.get('/api/v1/dashboard')).body;
    expect(empty).toMatchObject({ approvals: [], failures: [], triggers: [], runs: [], stale: [] });
    expect(empty.counts).toEqual({
      projects: 0,
      workflows: 0,
      published: 0,
      connections: 0,
      runsThisWeek: 0,
    });
    expect(empty.activity.map((day: { runs: number }) => day.runs)).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });

  it('answers in bounded time with a frozen service: stale but marked when read before, 503 when never', async () => {
    const agent = await org.api.post('/api/v1/agents', {
      name: 'patient',
      apps: [
        { connectionId, integrationId: 'http', actions: ['http__request'], approvals: ['http__request'] },
      ],
    });
    const asking = await published(
      'Asking again',
      chainOf(nodes.trigger('t'), {
        id: 'ask',
        data: { type: 'agent', properties: { agentId: agent.body.id, task: 'Tell the team.' } },
      }),
    );
    model.queue({
      toolCalls: [{ name: 'http__request', arguments: { method: 'POST', url: `${target.url}/ask` } }],
    });
    const waiting = await runTo(asking, '', ['waiting']);
    const before = await org.api.get('/api/v1/dashboard');
    expect(before.status).toBe(200);
    expect(before.body.approvals).toEqual([expect.objectContaining({ runId: waiting, workflowId: asking })]);
    const never = await createOrganization(stack.description);
    const agentService = stack.processes.get('agent')!;
    agentService.child.kill('SIGSTOP');
    try {
      const startedAt = Date.now();
      const stale = await org.api.get('/api/v1/dashboard');
      // The services' own request timeout is 10 s: the dashboard gave up after its 2 s budget.
      expect(Date.now() - startedAt).toBeLessThan(3_500);
      expect(stale.status).toBe(200);
      expect(stale.body.stale).toEqual([{ part: 'agents', asOf: expect.any(String) }]);
      expect(Date.parse(stale.body.stale[0].asOf)).toBeLessThan(startedAt);
      expect(stale.body.approvals).toEqual(before.body.approvals);
      expect(stale.body.counts).toEqual(before.body.counts);

      const unavailable = await never.api.get('/api/v1/dashboard');
      expect(unavailable.status).toBe(503);
      expect(unavailable.body.error).toMatchObject({
        code: 'service_unavailable',
        details: { parts: ['agents'] },
      });
    } finally {
      agentService.child.kill('SIGCONT');
    }
    await waitFor(
      async () => {
        const current = await org.api.get('/api/v1/dashboard');
        return current.status === 200 && current.body.stale.length === 0 ? current : undefined;
      },
      { what: 'the dashboard to be current again' },
    );
  });
});
