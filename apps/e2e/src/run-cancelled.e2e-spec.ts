import { randomUUID } from 'node:crypto';

import { AgentSubjects, DatabaseSubjects, EventsSubjects, servicePrincipal } from '#contracts';
import {
  ActingRunner,
  chainOf,
  createAgent,
  createConnection,
  createDatabaseIn,
  createOrganization,
  createProject,
  createWorkflow,
  HttpTarget,
  nodes,
  type OrganizationFixture,
  rowsOf,
  runReaches,
  ScriptedModel,
  startRun,
  stepOf,
  TestStack,
  waitFor,
} from '#testing';

/**
 * Work in flight is stopped when its run is cancelled. Once the runner has committed a cancel it
 * sends `runner.events.run-cancelled.<runId>`; each service doing one of the run's steps stops it:
 * the app's HTTP request is aborted, the model call aborted, the SQL statement interrupted and rolled
 * back, the run's pending approvals closed. Here the test plays the runner over NATS (a step's
 * request, then the notice), so what is measured is the service alone. A cancel names an
 * organization: another organization's work goes on.
 */
describe('a cancelled run’s work in flight', () => {
  let stack: TestStack;
  let model: ScriptedModel;
  let target: HttpTarget;
  let runner: ActingRunner;
  let org: OrganizationFixture;
  let connectionId: string;

  beforeAll(async () => {
    model = await ScriptedModel.start();
    target = await HttpTarget.start();
    stack = await TestStack.start(
      { ...model.gatewayEnv, ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true' },
      { services: ['catalog', 'database', 'events', 'agent', 'workflow', 'runner'], allInOne: true },
    );
    runner = await ActingRunner.connect(stack.description);
    org = await createOrganization(stack.description);
    ({ connectionId } = await createConnection(stack.description, org.organizationId, 'http'));
  }, 120_000);

  afterAll(async () => {
    await runner?.close();
    await stack?.stop();
    await Promise.all([model?.stop(), target?.stop()]);
  });

  const principal = () => servicePrincipal(org.organizationId);

  /**
   * An action of run `runId` calling `path` on the target, which never answers; once the app has it.
   * The reply is wrapped: a promise returned from an async function would be waited for.
   */
  async function heldAction(runId: string, path: string) {
    target.respond(path, { hold: true });
    const { reply } = await runner.request(EventsSubjects.actionsExecute, principal(), {
      connectionId,
      action: 'http__request',
      input: { method: 'POST', url: `${target.url}${path}` },
      idempotencyKey: `${runId}:call:1`,
      timeoutMs: 60_000,
      runId,
    });
    await waitFor(() => (target.requestsTo(path).length > 0 ? true : undefined), {
      what: `the action to reach ${path}`,
    });
    return { reply };
  }

  const abandoned = (path: string) =>
    waitFor(() => target.requestsTo(path)[0]?.abandonedAt, { what: `the request to ${path} to be closed` });

  it('aborts the app’s HTTP request within a second, for the cancel’s organization only', async () => {
    const runId = randomUUID();
    const otherRunId = randomUUID();
    const { reply } = await heldAction(runId, '/held');
    const { reply: otherReply } = await heldAction(otherRunId, '/held-other');

    // Another organization's cancel of the same run id does nothing. The events service hears the
    // notices in the order they were sent, so once the second run's request is closed it has
    // handled the first notice too.
    await runner.cancel({ runId, organizationId: `org-${randomUUID()}`, message: 'Not yours.' });
    await runner.cancel({ runId: otherRunId, organizationId: org.organizationId, message: 'Other.' });
    await abandoned('/held-other');
    expect(await otherReply).toMatchObject({ ok: false, error: { message: 'Other.' } });
    expect(target.requestsTo('/held')[0]!.abandonedAt).toBeUndefined();

    const message = 'Cancelled by ada@example.com: the wrong customer.';
    const sentAt = await runner.cancel({ runId, organizationId: org.organizationId, message });
    const closedAt = await abandoned('/held');
    expect(closedAt - sentAt).toBeLessThan(1_000);
    expect(await reply).toEqual({
      ok: false,
      error: { status: 409, code: 'run_not_active', message },
    });
    expect(target.requestsTo('/held')).toHaveLength(1);
  });

  it('survives notices that are not valid and still hears the next one', async () => {
    const runId = randomUUID();
    const { reply } = await heldAction(runId, '/held-after-garbage');
    await runner.sendRaw(runId, 'not json');
    await runner.sendRaw(runId, JSON.stringify({ runId, organizationId: 42 }));
    await runner.sendRaw(runId, JSON.stringify([runId]));
    await runner.cancel({ runId, organizationId: org.organizationId, message: 'After garbage.' });
    await abandoned('/held-after-garbage');
    expect(await reply).toMatchObject({ ok: false, error: { message: 'After garbage.' } });
  });

  it('aborts the model call of the run’s Agent step', async () => {
    const agent = await createAgent(org.api, { name: 'held-thinker', instructions: 'Answer.' });
    const calls = model.calls.length;
    model.queue({ partial: '', then: 'hang' });
    const runId = randomUUID();
    const { reply } = await runner.request(AgentSubjects.stepsRun, principal(), {
      agentId: agent.id,
      task: 'Think.',
      runId,
      nodeId: 'ask',
      workflowId: randomUUID(),
      workflowName: 'Cancelled',
    });
    const call = await waitFor(() => model.calls[calls], { what: 'the model to be called' });

    const message = 'Cancelled by ada@example.com: no longer needed.';
    const sentAt = await runner.cancel({ runId, organizationId: org.organizationId, message });
    await waitFor(() => (call.abandoned ? true : undefined), {
      intervalMs: 10,
      what: 'the model call to be aborted',
    });
    expect(performance.now() - sentAt).toBeLessThan(1_000);
    expect(await reply).toEqual({ ok: false, error: { status: 409, code: 'run_not_active', message } });
    // Aborted, not retried.
    expect(model.calls.length - calls).toBe(1);
  });

  it('interrupts the run’s SQL statement and rolls it back: nothing of it is kept', async () => {
    const databaseId = await createDatabaseIn(org.api, 'cancelled');
    await rowsOf(org.api, databaseId, [{ sql: 'CREATE TABLE marks (n BIGINT)', params: [] }]);
    const runId = randomUUID();
    const endless = await runner.request(DatabaseSubjects.query, principal(), {
      id: databaseId,
      body: {
        // Hours of CPU unless interrupted; the statement writes its one row only at the end.
        statements: [
          {
            sql: 'INSERT INTO marks SELECT count(*) FROM range(10000000000) a, range(100) b WHERE a.range + b.range = -1',
            params: [],
          },
        ],
        runId,
      },
    });
    let answered = false;
    const reply = endless.reply.finally(() => (answered = true));

    // Nothing outside tells when the batch reached the engine, and a notice that comes before it
    // did is not for any work there; so the notice is sent until the batch answers (a runner's one
    // notice comes long after its step started).
    const message = 'Cancelled by ada@example.com: too slow.';
    const firstSentAt = await runner.cancel({ runId, organizationId: org.organizationId, message });
    await waitFor(
      async () =>
        answered ? true : void (await runner.cancel({ runId, organizationId: org.organizationId, message })),
      { timeoutMs: 30_000, intervalMs: 100, what: 'the batch to answer' },
    );
    // Well inside the statement's own 30 s limit: it was interrupted, not timed out.
    expect(performance.now() - firstSentAt).toBeLessThan(3_000);
    expect(await reply).toEqual({ ok: false, error: { status: 409, code: 'run_not_active', message } });
    expect(await rowsOf(org.api, databaseId, [{ sql: 'SELECT count(*) FROM marks', params: [] }])).toEqual([
      [['0']],
    ]);
  });

  it('closes the run’s pending approvals: a later decision is refused and the action never runs', async () => {
    const agent = await createAgent(org.api, {
      name: 'careful-cancelled',
      apps: [
        { connectionId, integrationId: 'http', actions: ['http__request'], approvals: ['http__request'] },
      ],
    });
    const projectId = await createProject(org.api, 'Cancelled runs');
    const workflowId = await createWorkflow(
      org.api,
      projectId,
      chainOf(nodes.trigger('t'), nodes.agent('ask', agent.id, 'Tell the team.')),
      { name: 'Careful' },
    );
    model.queue({
      toolCalls: [
        { name: 'http__request', arguments: { method: 'POST', url: `${target.url}/approved-later` } },
      ],
    });
    const started = await startRun(org.api, workflowId, {});
    expect(started.response.status).toBe(201);
    const runId = started.data!.id;
    const waiting = await runReaches(org.api, runId, ['waiting'], { timeoutMs: 30_000, intervalMs: 100 });
    const [approval] = JSON.parse(stepOf(waiting, 'ask')!.output!.approvals!) as Array<{ id: string }>;
    const pendingOfRun = async () =>
      (await org.api.GET('/api/v1/dashboard')).data?.approvals.filter((pending) => pending.runId === runId);
    expect(await pendingOfRun()).toHaveLength(1);

    const message = 'Cancelled by ada@example.com: the campaign was called off.';
    await runner.cancel({ runId, organizationId: org.organizationId, message });
    await waitFor(async () => ((await pendingOfRun())?.length === 0 ? true : undefined), {
      intervalMs: 100,
      what: 'the approval to be closed',
    });

    const late = await org.api.POST('/api/v1/runs/{id}/approvals/{approvalId}', {
      params: { path: { id: runId, approvalId: approval!.id } },
      body: { decision: 'approve' },
    });
    expect({ status: late.response.status, code: late.error?.error.code }).toEqual({
      status: 409,
      code: 'approval_not_pending',
    });
    expect(late.error?.error.message).toBe(`The approval was already denied (${message}).`);
    expect(target.requestsTo('/approved-later')).toEqual([]);
  });

  describe('through POST /runs/{id}/cancel, on runs the runner executes', () => {
    const cancelRun = (runId: string, reason: string) =>
      org.api.POST('/api/v1/runs/{id}/cancel', { params: { path: { id: runId } }, body: { reason } });

    it('aborts an Agent step mid-call: the step ends error with who and why, the model call is closed', async () => {
      const agent = await createAgent(org.api, { name: 'slow-thinker', instructions: 'Answer.' });
      const projectId = await createProject(org.api, 'Cancelled agent');
      const workflowId = await createWorkflow(
        org.api,
        projectId,
        chainOf(nodes.trigger('t'), nodes.agent('ask', agent.id, 'Think hard.')),
        { name: 'Thinker' },
      );
      const calls = model.calls.length;
      model.queue({ partial: 'Let me', then: 'hang' });
      const started = await startRun(org.api, workflowId, {});
      const runId = started.data!.id;
      const call = await waitFor(() => model.calls[calls], { what: 'the model to be called' });

      const cancelled = await cancelRun(runId, 'taking too long');
      expect(cancelled.response.status).toBe(200);
      expect(cancelled.data!.status).toBe('terminated');
      expect(stepOf(cancelled.data!, 'ask')).toMatchObject({
        status: 'error',
        error: expect.stringMatching(/^Cancelled by API key \S+: taking too long$/),
      });
      await waitFor(() => (call.abandoned ? true : undefined), { what: 'the model call to be closed' });
      // Aborted, not retried.
      expect(model.calls.length - calls).toBe(1);
    });

    it('interrupts a database step mid-statement and rolls it back', async () => {
      const databaseId = await createDatabaseIn(org.api, 'cancelled-step');
      await rowsOf(org.api, databaseId, [{ sql: 'CREATE TABLE marks (n BIGINT)', params: [] }]);
      const projectId = await createProject(org.api, 'Cancelled query');
      const workflowId = await createWorkflow(
        org.api,
        projectId,
        chainOf(
          nodes.trigger('t'),
          // Hours of CPU unless interrupted; the statement writes its one row only at the end.
          nodes.database(
            'endless',
            databaseId,
            'INSERT INTO marks SELECT count(*) FROM range(10000000000) a, range(100) b WHERE a.range + b.range = -1',
          ),
        ),
        { name: 'Endless' },
      );
      const runId = (await startRun(org.api, workflowId, {})).data!.id;
      // The step is recorded running before its request is sent; a cancel that overtakes the request
      // stops it as it arrives.
      await runReaches(org.api, runId, ['running'], { intervalMs: 20 });
      await waitFor(
        async () => {
          const { data } = await org.api.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } });
          return stepOf(data!, 'endless')?.status === 'running' ? true : undefined;
        },
        { intervalMs: 20, what: 'the database step to start' },
      );
      const cancelled = await cancelRun(runId, 'runaway query');
      expect(cancelled.data).toMatchObject({ status: 'terminated' });
      expect(stepOf(cancelled.data!, 'endless')).toMatchObject({ status: 'error' });
      // The writer is free again long before the statement's own limit: the statement was stopped,
      // and nothing of it was kept.
      await waitFor(
        async () => {
          const [[row]] = await rowsOf(org.api, databaseId, [
            { sql: 'INSERT INTO marks VALUES (1) RETURNING n', params: [] },
          ]);
          return row;
        },
        { timeoutMs: 15_000, intervalMs: 200, what: 'a write to go through' },
      );
      expect(await rowsOf(org.api, databaseId, [{ sql: 'SELECT count(*) FROM marks', params: [] }])).toEqual([
        [['1']],
      ]);
    });

    it('cancels a run waiting on an approval: the approval is closed and a later decision refused', async () => {
      const agent = await createAgent(org.api, {
        name: 'careful-api-cancel',
        apps: [
          { connectionId, integrationId: 'http', actions: ['http__request'], approvals: ['http__request'] },
        ],
      });
      const projectId = await createProject(org.api, 'Cancelled approvals');
      const workflowId = await createWorkflow(
        org.api,
        projectId,
        chainOf(nodes.trigger('t'), nodes.agent('ask', agent.id, 'Tell the team.')),
        { name: 'Careful via API' },
      );
      model.queue({
        toolCalls: [
          { name: 'http__request', arguments: { method: 'POST', url: `${target.url}/never-sent` } },
        ],
      });
      const runId = (await startRun(org.api, workflowId, {})).data!.id;
      const waiting = await runReaches(org.api, runId, ['waiting'], { timeoutMs: 30_000, intervalMs: 100 });
      const [approval] = JSON.parse(stepOf(waiting, 'ask')!.output!.approvals!) as Array<{ id: string }>;

      const cancelled = await cancelRun(runId, 'called off');
      expect(cancelled.data).toMatchObject({ status: 'terminated' });
      expect(stepOf(cancelled.data!, 'ask')).toMatchObject({ status: 'error', output: null });
      const late = await waitFor(
        async () => {
          const decided = await org.api.POST('/api/v1/runs/{id}/approvals/{approvalId}', {
            params: { path: { id: runId, approvalId: approval!.id } },
            body: { decision: 'approve' },
          });
          return decided.response.status === 409 ? decided : undefined;
        },
        { what: 'a decision to be refused' },
      );
      expect(late.error?.error.code).toBe('approval_not_pending');
      expect(target.requestsTo('/never-sent')).toEqual([]);
    });
  });
});
