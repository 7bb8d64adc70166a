import { randomUUID } from 'node:crypto';

import type { PendingApprovalDto, StepApproval } from '#contracts';
import {
  type ApiClient,
  chainOf,
  createConnection,
  createMember,
  createOrganization,
  createProject,
  createWorkflow,
  type ErrorBody,
  HttpTarget,
  type MemberFixture,
  nodes,
  type OrganizationFixture,
  runReaches,
  type RunStatus,
  type RunStep,
  type Schemas,
  ScriptedModel,
  type SmtpSink,
  startRun,
  startSmtpSink,
  statusOf,
  stepOf,
  TestStack,
  waitFor,
} from '#testing';
/**
 * Ask-first actions: the Agent step waits with the call recorded pending, a decision approves (the
 * action runs once, the agent goes on with its result) or denies (the agent goes on with the reason),
 * an approval left alone expires and fails the step, and the wait survives the runner and the agent
 * service being killed. Admins are emailed through a local SMTP server.
 */
describe('agent approvals', () => {
  let stack: TestStack;
  let model: ScriptedModel;
  let smtp: SmtpSink;
  let target: HttpTarget;
  let org: OrganizationFixture;
  let admin: MemberFixture;
  let projectId: string;
  let connectionId: string;

  const AGENT_ENV = { APPROVAL_UPKEEP_INTERVAL_MS: '200' };

  beforeAll(async () => {
    model = await ScriptedModel.start();
    smtp = await startSmtpSink();
    target = await HttpTarget.start();
    stack = await TestStack.start(
      {
        ...model.gatewayEnv,
        ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true',
        SMTP_URL: smtp.url,
        PUBLIC_URL: 'https://flows.example.com',
        RUNNER_SWEEP_INTERVAL_MS: '200',
        // The pending list is read from the dashboard: a busy machine must not make it a 503.
        DASHBOARD_TIMEOUT_MS: '8000',
        ...AGENT_ENV,
      },
      { services: ['catalog', 'database', 'events', 'agent', 'workflow', 'runner'] },
    );
    org = await createOrganization(stack.description);
    admin = await createMember(stack.description, org.organizationId, 'admin');
    projectId = await createProject(org.api, 'Approvals');
    ({ connectionId } = await createConnection(stack.description, org.organizationId, 'http'));
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await Promise.all([model?.stop(), smtp?.stop(), target?.stop()]);
  });

  let agents = 0;

  /** One ask-first HTTP call to each path, all in the model's first answer. */
  const callsTo = (...paths: string[]) => ({
    toolCalls: paths.map((path) => ({
      name: 'http__request',
      arguments: { method: 'POST', url: `${target.url}${path}`, body: { n: 1 } },
    })),
  });

  /** An Agent step's `approvals` output: its ask-first calls, as JSON text. */
  const approvalsOf = (step: RunStep) => JSON.parse(step.output!.approvals!) as StepApproval[];

  /** A run is settled for these tests once it reaches one of the statuses asked for. */
  const SETTLE = { timeoutMs: 30_000, intervalMs: 50 };
  const FINISHED: RunStatus[] = ['complete', 'errored'];

  /** Publishes a workflow whose agent must ask before each HTTP request. */
  async function carefulWorkflow() {
    agents += 1;
    const agent = await org.api.POST('/api/v1/agents', {
      body: {
        name: `careful-${agents}`,
        apps: [
          { connectionId, integrationId: 'http', actions: ['http__request'], approvals: ['http__request'] },
        ],
      },
    });
    expect(agent.response.status).toBe(201);
    const workflowName = `Careful ${agents}`;
    const workflowId = await createWorkflow(
      org.api,
      projectId,
      chainOf(nodes.trigger('t'), nodes.agent('ask', agent.data!.id, 'Tell the team.')),
      { name: workflowName },
    );
    return { workflowId, workflowName };
  }

  /** Starts a run of a `carefulWorkflow` whose agent asks to call each path; answers once it waits. */
  async function startWaitingRun(...paths: string[]) {
    const { workflowId, workflowName } = await carefulWorkflow();
    model.queue(callsTo(...paths));
    const started = await startRun(org.api, workflowId, {});
    expect(started.response.status).toBe(201);
    const run = await runReaches(org.api, started.data!.id, ['waiting'], SETTLE);
    const step = stepOf(run, 'ask')!;
    return { run, step, approvals: approvalsOf(step), workflowId, workflowName };
  }

  const decide = (api: ApiClient, runId: string, approvalId: string, body: Schemas['DecideApprovalDto']) =>
    api.POST('/api/v1/runs/{id}/approvals/{approvalId}', {
      params: { path: { id: runId, approvalId } },
      body,
    });

  async function pendingOnDashboard(fixture: OrganizationFixture): Promise<PendingApprovalDto[]> {
    const dashboard = await fixture.api.GET('/api/v1/dashboard');
    expect(dashboard.response.status).toBe(200);
    return dashboard.data!.approvals;
  }

  it('waits for an ask-first call, emails the admins, runs the action once approved and goes on with its result', async () => {
    const { run, step, approvals, workflowId, workflowName } = await startWaitingRun('/approved');
    expect(step.status).toBe('waiting');
    expect(approvals).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        tool: 'http__request',
        input: { method: 'POST', url: `${target.url}/approved`, body: { n: 1 } },
        status: 'pending',
        reason: null,
      },
    ]);
    expect(target.requestsTo('/approved')).toEqual([]);

    const listed = await pendingOnDashboard(org);
    expect(listed).toContainEqual({
      runId: run.id,
      workflowId,
      workflowName,
      tool: 'http__request',
      expiresAt: expect.any(String),
    });
    const hours =
      (Date.parse(listed.find((item) => item.runId === run.id)!.expiresAt) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(71.9);
    expect(hours).toBeLessThanOrEqual(72);
    expect(await pendingOnDashboard(await createOrganization(stack.description))).toEqual([]);

    const mail = await waitFor(() => smtp.mails.find((candidate) => candidate.text.includes(run.id)), {
      timeoutMs: 15_000,
      what: 'the approval email',
    });
    expect(mail.to).toContain(admin.email);
    expect(mail.text).toContain(`https://flows.example.com/runs/${run.id}`);
    expect(mail.text).toContain('http__request');

    model.queue({ text: 'The team was told.' });
    const calls = model.calls.length;
    const decided = await decide(admin.api, run.id, approvals[0]!.id, { decision: 'approve' });
    expect(decided.response.status).toBe(200);
    expect(decided.data).toEqual({
      id: approvals[0]!.id,
      status: 'approved',
      tool: 'http__request',
      reason: null,
      result: expect.objectContaining({ status: expect.anything() }),
    });

    const done = await runReaches(org.api, run.id, FINISHED, SETTLE);
    expect(done.status).toBe('complete');
    expect(done.reply).toBe('The team was told.');
    const ask = stepOf(done, 'ask')!;
    expect(ask.output!.tools).toBe('http__request ok');
    expect(approvalsOf(ask)).toEqual([expect.objectContaining({ id: approvals[0]!.id, status: 'approved' })]);
    const received = target.requestsTo('/approved');
    expect(received).toHaveLength(1);
    expect(received[0]!.headers['idempotency-key']).toMatch(new RegExp(`^${run.id}:ask:call_`));
    // The model went on from the action's result.
    expect(JSON.stringify(model.calls.slice(calls)[0]!.messages)).toMatch(/"role":"tool"/);
    expect(await pendingOnDashboard(org)).not.toContainEqual(expect.objectContaining({ runId: run.id }));

    // The decision is in the audit log (docs/audit.md), once, by the admin who made it.
    const audited = await admin.api.GET('/api/v1/audit', {
      params: { query: { action: 'approval.decided', resourceId: approvals[0]!.id } },
    });
    expect(audited.data?.data).toEqual([
      expect.objectContaining({
        actor: { type: 'member', id: admin.userId },
        resource: { type: 'approval', id: approvals[0]!.id, name: expect.any(String) },
        details: expect.objectContaining({ decision: 'approved', runId: run.id, tool: 'http__request' }),
      }),
    ]);

    const again = await decide(org.api, run.id, approvals[0]!.id, { decision: 'deny' });
    expect(again.response.status).toBe(409);
    expect(again.error?.error.code).toBe('approval_not_pending');
  });

  it('resumes the agent with the reason when denied, and the action never runs', async () => {
    const { run, approvals } = await startWaitingRun('/denied');
    model.queue({ text: 'I did not tell the team: the request was denied.' });
    const calls = model.calls.length;
    const decided = await decide(org.api, run.id, approvals[0]!.id, {
      decision: 'deny',
      reason: 'Not today',
    });
    expect(decided.response.status).toBe(200);
    expect(decided.data).toEqual({
      id: approvals[0]!.id,
      status: 'denied',
      tool: 'http__request',
      reason: 'Not today',
      result: null,
    });
    const done = await runReaches(org.api, run.id, FINISHED, SETTLE);
    expect(done.status).toBe('complete');
    expect(stepOf(done, 'ask')!.output!.tools).toBe('http__request: denied (Not today)');
    expect(JSON.stringify(model.calls.slice(calls)[0]!.messages)).toContain('Not today');
    expect(target.requestsTo('/denied')).toEqual([]);
  });

  it('answers unknown runs and approvals, other organizations and bad decisions with the contract’s errors', async () => {
    const { run, approvals } = await startWaitingRun('/refused');
    const approvalId = approvals[0]!.id;
    const outsider = await createOrganization(stack.description);
    const cases: Array<[ApiClient, string, string, object, number, string]> = [
      [org.api, randomUUID(), approvalId, { decision: 'approve' }, 404, 'run_not_found'],
      [org.api, run.id, randomUUID(), { decision: 'approve' }, 404, 'approval_not_found'],
      [org.api, run.id, 'not-an-id', { decision: 'approve' }, 404, 'approval_not_found'],
      [outsider.api, run.id, approvalId, { decision: 'approve' }, 404, 'run_not_found'],
      [org.api, run.id, approvalId, { decision: 'maybe' }, 400, 'invalid_request'],
      [org.api, run.id, approvalId, {}, 400, 'invalid_request'],
      [org.api, run.id, approvalId, { decision: 'deny', reason: 'x'.repeat(1001) }, 400, 'invalid_request'],
    ];
    for (const [api, runId, id, body, status, code] of cases) {
      // Some of these bodies are wrong on purpose: sent past the typed client.
      const answer = await api.raw.post<ErrorBody>(`/api/v1/runs/${runId}/approvals/${id}`, body);
      expect({ body, status: answer.status, code: answer.body.error?.code }).toEqual({
        body,
        status,
        code,
      });
    }
    // Nothing was decided by the refused calls: the approval still waits, and is decided now.
    model.queue({ text: 'Done.' });
    const decided = await decide(org.api, run.id, approvalId, { decision: 'deny', reason: 'x'.repeat(1000) });
    expect(decided.response.status).toBe(200);
    expect((await runReaches(org.api, run.id, FINISHED, SETTLE)).status).toBe('complete');
  });

  it('refuses decisions once the run has ended: the workflow was deleted while the step waited', async () => {
    const { run, approvals, workflowId } = await startWaitingRun('/terminated');
    expect(
      await statusOf(org.api.DELETE('/api/v1/workflows/{id}', { params: { path: { id: workflowId } } })),
    ).toBe(200);
    expect((await runReaches(org.api, run.id, ['terminated'], SETTLE)).status).toBe('terminated');
    const late = await decide(org.api, run.id, approvals[0]!.id, { decision: 'approve' });
    expect({ status: late.response.status, code: late.error?.error?.code }).toEqual({
      status: 409,
      code: 'approval_not_pending',
    });
    expect(late.error?.error.message).toMatch(/terminated/);
    expect(target.requestsTo('/terminated')).toEqual([]);
    expect(await pendingOnDashboard(org)).not.toContainEqual(expect.objectContaining({ runId: run.id }));
  });

  it('resumes after the runner and the agent service were killed during the wait, running the action once', async () => {
    const { run, approvals } = await startWaitingRun('/survived');
    await Promise.all([
      stack.processes.get('runner')!.kill('SIGKILL'),
      stack.processes.get('agent')!.kill('SIGKILL'),
    ]);
    await Promise.all([stack.startService('runner'), stack.startService('agent', AGENT_ENV)]);

    model.queue({ text: 'Survived.' });
    const decided = await decide(admin.api, run.id, approvals[0]!.id, { decision: 'approve' });
    expect(decided.response.status).toBe(200);
    const done = await runReaches(org.api, run.id, FINISHED, SETTLE);
    expect({ status: done.status, reply: done.reply }).toEqual({ status: 'complete', reply: 'Survived.' });
    expect(target.requestsTo('/survived')).toHaveLength(1);
  });

  it('resumes only once every call of the step is decided, and waits again for calls made after', async () => {
    const { run, approvals } = await startWaitingRun('/both-1', '/both-2');
    expect(approvals.map((approval) => approval.status)).toEqual(['pending', 'pending']);
    const first = await decide(org.api, run.id, approvals[0]!.id, { decision: 'approve' });
    expect(first.data!.status).toBe('approved');
    // The step is woken by the first decision and goes back to waiting for the second.
    const half = await waitFor(
      async () => {
        const current = (await org.api.GET('/api/v1/runs/{id}', { params: { path: { id: run.id } } })).data!;
        const statuses = approvalsOf(stepOf(current, 'ask')!).map((approval) => approval.status);
        return current.status === 'waiting' && statuses[0] === 'approved' ? statuses : undefined;
      },
      { timeoutMs: 15_000, what: 'the step to show the first decision' },
    );
    expect(half).toEqual(['approved', 'pending']);

    model.queue(callsTo('/again'), { text: 'Both done, and once more.' });
    const second = await decide(org.api, run.id, approvals[1]!.id, {
      decision: 'deny',
      reason: 'One is enough',
    });
    expect(second.data!.status).toBe('denied');
    const again = await runReaches(org.api, run.id, ['waiting', 'complete', 'errored'], SETTLE);
    const waitingAgain = approvalsOf(stepOf(again, 'ask')!);
    expect(waitingAgain.map((approval) => approval.status)).toEqual(['approved', 'denied', 'pending']);
    expect(await statusOf(decide(org.api, run.id, waitingAgain[2]!.id, { decision: 'approve' }))).toBe(200);

    const done = await runReaches(org.api, run.id, FINISHED, SETTLE);
    expect({ status: done.status, reply: done.reply }).toEqual({
      status: 'complete',
      reply: 'Both done, and once more.',
    });
    expect(stepOf(done, 'ask')!.output!.tools).toBe(
      'http__request ok\nhttp__request: denied (One is enough)\nhttp__request ok',
    );
    expect(
      [target.requestsTo('/both-1'), target.requestsTo('/both-2'), target.requestsTo('/again')].map(
        (r) => r.length,
      ),
    ).toEqual([1, 0, 1]);
  });

  it('ends a wait (Prefer: wait, ?wait) at a run waiting on an approval, even one that expires within the wait', async () => {
    // Approvals that expire within a wait: were their expiry a wake to wait for, the waits below
    // would answer the run errored (the approval expired) rather than waiting.
    await stack.processes.get('agent')!.stop();
    await stack.startService('agent', { ...AGENT_ENV, APPROVAL_TTL_SECONDS: '45' });
    const { workflowId } = await carefulWorkflow();
    model.queue(callsTo('/asked'));
    const started = await startRun(org.api, workflowId, {}, { Prefer: 'wait=60' });
    expect(started.response.status).toBe(201);
    expect(started.response.headers.get('preference-applied')).toBe('wait=60');
    expect(started.data!.status).toBe('waiting');
    expect(approvalsOf(stepOf(started.data!, 'ask')!).map((approval) => approval.status)).toEqual([
      'pending',
    ]);

    const runId = started.data!.id;
    const read = await org.api.GET('/api/v1/runs/{id}', {
      params: { path: { id: runId }, query: { wait: 60 } },
    });
    expect(read.data!.status).toBe('waiting');
    const [approval] = approvalsOf(stepOf(read.data!, 'ask')!);
    expect(approval!.status).toBe('pending');

    model.queue({ text: 'Left it.' });
    expect(
      await statusOf(decide(org.api, runId, approval!.id, { decision: 'deny', reason: 'Not now' })),
    ).toBe(200);
    expect((await runReaches(org.api, runId, FINISHED, SETTLE)).status).toBe('complete');
    expect(target.requestsTo('/asked')).toEqual([]);
  });

  it('expires an approval left without a decision: a late decision is refused, and the step fails', async () => {
    // Whichever notices the deadline first, the runner's timer (woken at it) or the late decision
    // (which expires the approval itself), the decision is refused in the same words.
    await stack.processes.get('agent')!.stop();
    await stack.startService('agent', { ...AGENT_ENV, APPROVAL_TTL_SECONDS: '2' });
    const { run, approvals } = await startWaitingRun('/expired');
    await waitFor(
      async () => ((await pendingOnDashboard(org)).some((item) => item.runId === run.id) ? undefined : true),
      { timeoutMs: 15_000, what: 'the approval to pass its deadline' },
    );
    const late = await decide(org.api, run.id, approvals[0]!.id, { decision: 'approve' });
    expect({ status: late.response.status, code: late.error?.error?.code }).toEqual({
      status: 409,
      code: 'approval_not_pending',
    });
    expect(late.error?.error.message).toBe('The approval expired without a decision.');
    // The expired approval's step fails.
    const done = await runReaches(org.api, run.id, FINISHED, SETTLE);
    expect(done.status).toBe('errored');
    const step = stepOf(done, 'ask')!;
    expect(step.status).toBe('error');
    expect(step.error).toBe('The approval of http__request expired without a decision.');
    expect(done.error).toBe(step.error);
    expect(target.requestsTo('/expired')).toEqual([]);
  });
});
