import type { StepApproval, StepUsage, ThreadDetailDto } from '#contracts';
import {
  type ApiClient,
  chainOf,
  chatBody,
  createAgent,
  createMember,
  createOrganization,
  createProject,
  createSkill,
  createWorkflow,
  type MemberFixture,
  nodes,
  type OrganizationFixture,
  runReaches,
  ScriptedModel,
  sendChat,
  startRun,
  stepOf,
  TestStack,
} from '#testing';

/**
 * Model usage end to end: a scripted model reports known token counts, and they reach the Agent
 * step's `usage` output, the thread's messages, `GET /api/v1/usage` (priced with `MODEL_PRICES`) and
 * billing; a monthly token budget sends a step to an owner's approval instead of failing it.
 */
describe('model usage', () => {
  let stack: TestStack;
  let model: ScriptedModel;
  let org: OrganizationFixture;
  let owner: MemberFixture;
  let member: MemberFixture;
  let projectId: string;

  /** USD per million tokens of the scripted model; the other model has no price. */
  const PRICE = { input: 2, output: 8, reasoning: 10, cached: 0.5 };
  const SETTLE = { timeoutMs: 30_000, intervalMs: 50 };

  beforeAll(async () => {
    model = await ScriptedModel.start();
    stack = await TestStack.start(
      {
        ...model.gatewayEnv,
        MODEL_PRICES: JSON.stringify({ 'gateway/scripted-default': PRICE }),
      },
      { services: ['catalog', 'database', 'events', 'agent', 'workflow', 'runner'], allInOne: true },
    );
    org = await createOrganization(stack.description);
    owner = await createMember(stack.description, org.organizationId, 'owner');
    member = await createMember(stack.description, org.organizationId);
    projectId = await createProject(org.api, 'Usage');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await model?.stop();
  });

  const usageOf = (output: Record<string, string> | null) => JSON.parse(output!.usage!) as StepUsage;
  const approvalsOf = (output: Record<string, string> | null) =>
    JSON.parse(output!.approvals!) as StepApproval[];

  async function agentWorkflow(agentId: string, name: string) {
    return createWorkflow(
      org.api,
      projectId,
      chainOf(nodes.trigger('t'), nodes.agent('ask', agentId, 'Do the task.')),
      { name },
    );
  }

  async function runTo(workflowId: string, statuses: Array<'complete' | 'errored' | 'waiting'>) {
    const started = await startRun(org.api, workflowId, {});
    expect(started.response.status).toBe(201);
    return runReaches(org.api, started.data!.id, statuses, SETTLE);
  }

  const thread = async (agentId: string, threadId: string) =>
    (await member.api.raw.get<ThreadDetailDto>(`/app/agents/${agentId}/threads/${threadId}`)).body;

  const usageThisMonth = async (api: ApiClient = org.api) => {
    const answer = await api.GET('/api/v1/usage');
    expect(answer.response.status).toBe(200);
    return answer.data!;
  };

  const decide = (api: ApiClient, runId: string, approvalId: string, decision: 'approve' | 'deny') =>
    api.POST('/api/v1/runs/{id}/approvals/{approvalId}', {
      params: { path: { id: runId, approvalId } },
      body: { decision, reason: decision === 'deny' ? 'Enough for this month' : undefined },
    });

  it('records the tokens of each model call on the step, the thread, the month’s usage and billing', async () => {
    const skillId = await createSkill(org.api, {
      name: 'tone',
      description: 'How to write',
      instructions: 'Be brief.',
    });
    const agent = await createAgent(org.api, { name: 'writer', skills: [skillId], thinkingLevel: 'low' });
    expect(agent.monthlyTokenBudget).toBeNull();
    model.queue(
      {
        toolCalls: [{ name: 'load_skill', arguments: { name: 'tone' } }],
        usage: { prompt: 1_000, completion: 200, reasoning: 150, cached: 600 },
      },
      { text: 'Written.', usage: { prompt: 1_300, completion: 40 } },
    );
    const run = await runTo(await agentWorkflow(agent.id, 'Write'), ['complete', 'errored']);
    expect(run.status).toBe('complete');
    const step = stepOf(run, 'ask')!;
    const first = {
      provider: 'gateway',
      model: 'scripted-default',
      inputTokens: 1_000,
      outputTokens: 200,
      reasoningTokens: 150,
      cachedInputTokens: 600,
    };
    const second = {
      ...first,
      inputTokens: 1_300,
      outputTokens: 40,
      reasoningTokens: 0,
      cachedInputTokens: 0,
    };
    expect(usageOf(step.output)).toEqual({
      calls: [first, second],
      total: { inputTokens: 2_300, outputTokens: 240, reasoningTokens: 150, cachedInputTokens: 600 },
    });
    // The four contract fields are as they were.
    expect(step.output).toMatchObject({ response: 'Written.', tools: 'load_skill ok', approvals: '[]' });

    const saved = await thread(agent.id, step.output!.thread!);
    expect(saved.messages.map((message) => [message.role, message.usage])).toEqual([
      ['user', null],
      ['assistant', first],
      ['tool', null],
      ['assistant', second],
    ]);

    // A chat turn counts too, and its answer carries its tokens in the thread.
    model.queue({ text: 'Hello Ada.', usage: { prompt: 50, completion: 10 } });
    const chat = await sendChat(member.api, agent.id, chatBody('usage-chat', 'Hi, I am Ada.'));
    expect(chat.status).toBe(200);
    const chatThread = await thread(agent.id, chat.chunks[0]!.messageMetadata!.threadId as string);
    expect(chatThread.messages.map((message) => message.usage)).toEqual([
      null,
      { ...second, inputTokens: 50, outputTokens: 10 },
    ]);

    const usage = await usageThisMonth();
    const month = new Date().toISOString().slice(0, 7);
    // (2,350 - 600) input at 2, 600 cached at 0.5, (250 - 150) output at 8, 150 reasoning at 10, per million.
    const cost = (1_750 * 2 + 600 * 0.5 + 100 * 8 + 150 * 10) / 1_000_000;
    const counts = {
      calls: 3,
      inputTokens: 2_350,
      outputTokens: 250,
      reasoningTokens: 150,
      cachedInputTokens: 600,
      totalTokens: 2_600,
      estimatedCost: cost,
    };
    expect(usage).toEqual({
      month,
      rows: [
        { agentId: agent.id, agentName: 'writer', provider: 'gateway', model: 'scripted-default', ...counts },
      ],
      totals: counts,
      monthlyTokenBudget: null,
    });

    const billing = await org.api.GET('/api/v1/billing');
    expect(billing.response.status).toBe(200);
    expect(billing.data!.modelUsage).toEqual({ month, ...counts, monthlyTokenBudget: null });
    // Its contract fields are all there, as before.
    expect(billing.data).toMatchObject({
      plan: expect.any(String),
      label: expect.any(String),
      complimentary: expect.any(Boolean),
      limits: expect.objectContaining({ agents: expect.any(Number) }),
    });

    // Another month has nothing; a month that is not one is refused.
    const past = await org.api.GET('/api/v1/usage', { params: { query: { month: '2020-01' } } });
    expect(past.data).toEqual({
      month: '2020-01',
      rows: [],
      totals: {
        ...counts,
        calls: 0,
        inputTokens: 0,
        outputTokens: 0,
        reasoningTokens: 0,
        cachedInputTokens: 0,
        totalTokens: 0,
        estimatedCost: 0,
      },
      monthlyTokenBudget: null,
    });
    const wrong = await org.api.GET('/api/v1/usage', { params: { query: { month: '2026-13' } } });
    expect({ status: wrong.response.status, code: wrong.error?.error?.code }).toEqual({
      status: 400,
      code: 'invalid_request',
    });
    // Another organization sees none of it.
    const other = await createOrganization(stack.description);
    expect((await usageThisMonth(other.api)).rows).toEqual([]);
  });

  it('has no estimated cost for a model without a price', async () => {
    const agent = await createAgent(org.api, { name: 'unpriced', model: 'no-price-model' });
    model.queue({ text: 'Done.', usage: { prompt: 7, completion: 3 } });
    expect((await runTo(await agentWorkflow(agent.id, 'Unpriced'), ['complete', 'errored'])).status).toBe(
      'complete',
    );
    const usage = await usageThisMonth();
    expect(usage.rows.find((row) => row.agentId === agent.id)).toMatchObject({
      model: 'no-price-model',
      calls: 1,
      totalTokens: 10,
      estimatedCost: null,
    });
    // A total that would leave out a model's spend is no total.
    expect(usage.totals.estimatedCost).toBeNull();
  });

  it('lets only owners set budgets', async () => {
    const refused = await org.api.POST('/api/v1/agents', {
      body: { name: 'budgeted-by-key', monthlyTokenBudget: 100 },
    });
    expect({ status: refused.response.status, code: refused.error?.error?.code }).toEqual({
      status: 403,
      code: 'forbidden',
    });
    const agent = await createAgent(org.api, { name: 'budgeted-later' });
    for (const api of [org.api, member.api]) {
      const patched = await api.PATCH('/api/v1/agents/{id}', {
        params: { path: { id: agent.id } },
        body: { monthlyTokenBudget: 5 },
      });
      expect(patched.response.status).toBe(403);
      const budget = await api.PUT('/api/v1/usage/budget', { body: { monthlyTokenBudget: 5 } });
      expect({ status: budget.response.status, code: budget.error?.error?.code }).toEqual({
        status: 403,
        code: 'forbidden',
      });
    }
    // Other fields are still anyone's, and sending the budget unchanged changes nothing.
    const renamed = await member.api.PATCH('/api/v1/agents/{id}', {
      params: { path: { id: agent.id } },
      body: { description: 'Renamed by a member', monthlyTokenBudget: null },
    });
    expect(renamed.response.status).toBe(200);
    const set = await owner.api.PATCH('/api/v1/agents/{id}', {
      params: { path: { id: agent.id } },
      body: { monthlyTokenBudget: 5_000 },
    });
    expect(set.data?.monthlyTokenBudget).toBe(5_000);
    const invalid = await owner.api.PUT('/api/v1/usage/budget', { body: { monthlyTokenBudget: 0 } });
    expect(invalid.response.status).toBe(400);
  });

  it('sends a step over its agent’s budget to an owner’s approval: approved it goes on, denied or expired it fails', async () => {
    const created = await owner.api.POST('/api/v1/agents', {
      body: { name: 'frugal', monthlyTokenBudget: 100 },
    });
    expect(created.response.status).toBe(201);
    const agent = created.data!;
    expect(agent.monthlyTokenBudget).toBe(100);
    const workflowId = await agentWorkflow(agent.id, 'Frugal');

    // Under the budget before its call: the step runs, and passes it.
    model.queue({ text: 'First.', usage: { prompt: 120, completion: 30 } });
    expect((await runTo(workflowId, ['complete', 'errored'])).status).toBe('complete');

    // At or over it: the next run's step waits for an owner instead of calling the model.
    const calls = model.calls.length;
    const waiting = await runTo(workflowId, ['waiting', 'errored', 'complete']);
    expect(waiting.status).toBe('waiting');
    const step = stepOf(waiting, 'ask')!;
    expect(step.status).toBe('waiting');
    const [approval] = approvalsOf(step.output);
    expect(approval).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tool: 'budget:frugal',
      input: { scope: 'agent', budget: 100, used: 150, month: new Date().toISOString().slice(0, 7) },
      status: 'pending',
      reason: null,
    });
    expect(model.calls.length).toBe(calls);
    const dashboard = await org.api.GET('/api/v1/dashboard');
    expect(dashboard.data!.approvals).toContainEqual(
      expect.objectContaining({ runId: waiting.id, tool: 'budget:frugal' }),
    );

    // A key (an admin) and a member may decide ask-first calls, not this one.
    for (const api of [org.api, member.api]) {
      const refused = await decide(api, waiting.id, approval!.id, 'approve');
      expect({ status: refused.response.status, code: refused.error?.error?.code }).toEqual({
        status: 403,
        code: 'forbidden',
      });
    }
    model.queue({ text: 'Second.', usage: { prompt: 20, completion: 5 } });
    const approved = await decide(owner.api, waiting.id, approval!.id, 'approve');
    expect(approved.data).toEqual({
      id: approval!.id,
      status: 'approved',
      tool: 'budget:frugal',
      reason: null,
      result: null,
    });
    const done = await runReaches(org.api, waiting.id, ['complete', 'errored'], SETTLE);
    expect(done.status).toBe('complete');
    expect(done.reply).toBe('Second.');
    const goneOn = stepOf(done, 'ask')!;
    expect(usageOf(goneOn.output).total).toMatchObject({ inputTokens: 20, outputTokens: 5 });
    expect(approvalsOf(goneOn.output)).toEqual([
      expect.objectContaining({ id: approval!.id, status: 'approved' }),
    ]);

    // The approval covered that run only: the next one waits again, and a denial fails its step.
    const again = await runTo(workflowId, ['waiting', 'errored', 'complete']);
    expect(again.status).toBe('waiting');
    const [second] = approvalsOf(stepOf(again, 'ask')!.output);
    expect(second!.input).toMatchObject({ used: 175 });
    const denied = await decide(owner.api, again.id, second!.id, 'deny');
    expect(denied.data?.status).toBe('denied');
    const failed = await runReaches(org.api, again.id, ['complete', 'errored'], SETTLE);
    expect(failed.status).toBe('errored');
    expect(stepOf(failed, 'ask')!.error).toBe(
      'The monthly token budget was passed and an owner denied going on (budget:frugal): Enough for this month',
    );

    // Left 72 hours without a decision (its deadline moved to the past here), it fails the step too.
    const late = await runTo(workflowId, ['waiting', 'errored', 'complete']);
    const [third] = approvalsOf(stepOf(late, 'ask')!.output);
    const db = new (await import('pg')).default.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
    try {
      await db.query(`UPDATE agent.approvals SET expires_at = now() - interval '1 second' WHERE id = $1`, [
        third!.id,
      ]);
    } finally {
      await db.end();
    }
    const tooLate = await decide(owner.api, late.id, third!.id, 'approve');
    expect({ status: tooLate.response.status, code: tooLate.error?.error?.code }).toEqual({
      status: 409,
      code: 'approval_not_pending',
    });
    const expired = await runReaches(org.api, late.id, ['complete', 'errored'], SETTLE);
    expect(stepOf(expired, 'ask')!.error).toBe(
      'The approval to pass the monthly token budget (budget:frugal) expired without a decision.',
    );
  });

  it('stops a step at the model call that would pass the budget, and goes on from there once approved', async () => {
    const skillId = await createSkill(org.api, {
      name: 'steps',
      description: 'How',
      instructions: 'Step by step.',
    });
    const created = await owner.api.POST('/api/v1/agents', {
      body: { name: 'midway', skills: [skillId], monthlyTokenBudget: 100 },
    });
    expect(created.response.status).toBe(201);
    const agentId = created.data!.id;
    // The first call (a tool call) passes the budget: the second, which would answer, waits.
    model.queue(
      {
        toolCalls: [{ name: 'load_skill', arguments: { name: 'steps' } }],
        usage: { prompt: 90, completion: 20 },
      },
      { text: 'Answered after the approval.', usage: { prompt: 130, completion: 6 } },
    );
    const calls = model.calls.length;
    const waiting = await runTo(await agentWorkflow(agentId, 'Midway'), ['waiting', 'errored', 'complete']);
    expect(waiting.status).toBe('waiting');
    expect(model.calls.length).toBe(calls + 1);
    const step = stepOf(waiting, 'ask')!;
    expect(step.output!.tools).toBe('load_skill ok');
    expect(usageOf(step.output).total).toMatchObject({ inputTokens: 90, outputTokens: 20 });
    const [approval] = approvalsOf(step.output);
    expect(approval).toMatchObject({
      tool: 'budget:midway',
      status: 'pending',
      input: { scope: 'agent', budget: 100, used: 110 },
    });
    // The round so far is kept: the task, the tool call and its result.
    expect((await thread(agentId, step.output!.thread!)).messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
    ]);

    expect((await decide(owner.api, waiting.id, approval!.id, 'approve')).response.status).toBe(200);
    const done = await runReaches(org.api, waiting.id, ['complete', 'errored'], SETTLE);
    expect(done.status).toBe('complete');
    expect(done.reply).toBe('Answered after the approval.');
    // The model went on from the tool's result.
    const [resumed] = model.calls.slice(calls + 1);
    expect(resumed!.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    const ask = stepOf(done, 'ask')!;
    expect(usageOf(ask.output).calls.map((call) => call.inputTokens)).toEqual([90, 130]);
    expect((await thread(agentId, ask.output!.thread!)).messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
  });

  it('sends a step over the organization’s budget to an owner’s approval', async () => {
    const fixture = await createOrganization(stack.description);
    const boss = await createMember(stack.description, fixture.organizationId, 'owner');
    const set = await boss.api.PUT('/api/v1/usage/budget', { body: { monthlyTokenBudget: 10 } });
    expect(set.data).toEqual({ monthlyTokenBudget: 10 });
    expect((await usageThisMonth(fixture.api)).monthlyTokenBudget).toBe(10);
    const agent = await createAgent(fixture.api, { name: 'spender' });
    const project = await createProject(fixture.api, 'Spend');
    const workflowId = await createWorkflow(
      fixture.api,
      project,
      chainOf(nodes.trigger('t'), nodes.agent('ask', agent.id, 'Spend.')),
      { name: 'Spend' },
    );
    model.queue({ text: 'Spent.', usage: { prompt: 8, completion: 4 } });
    const first = await startRun(fixture.api, workflowId, {});
    expect((await runReaches(fixture.api, first.data!.id, ['complete', 'errored'], SETTLE)).status).toBe(
      'complete',
    );
    const started = await startRun(fixture.api, workflowId, {});
    const waiting = await runReaches(
      fixture.api,
      started.data!.id,
      ['waiting', 'errored', 'complete'],
      SETTLE,
    );
    expect(waiting.status).toBe('waiting');
    const [approval] = approvalsOf(stepOf(waiting, 'ask')!.output);
    expect(approval).toMatchObject({
      tool: 'budget:spender',
      input: { scope: 'organization', budget: 10, used: 12 },
    });
    model.queue({ text: 'Spent again.' });
    expect((await decide(boss.api, waiting.id, approval!.id, 'approve')).response.status).toBe(200);
    expect((await runReaches(fixture.api, waiting.id, ['complete', 'errored'], SETTLE)).status).toBe(
      'complete',
    );
    const billing = await fixture.api.GET('/api/v1/billing');
    expect(billing.data!.modelUsage).toMatchObject({ calls: 2, totalTokens: 27, monthlyTokenBudget: 10 });
    // Removing the budget: runs no longer wait.
    expect((await boss.api.PUT('/api/v1/usage/budget', { body: { monthlyTokenBudget: null } })).data).toEqual(
      {
        monthlyTokenBudget: null,
      },
    );
    model.queue({ text: 'Free again.' });
    const free = await startRun(fixture.api, workflowId, {});
    expect(
      (await runReaches(fixture.api, free.data!.id, ['complete', 'errored', 'waiting'], SETTLE)).status,
    ).toBe('complete');
  });
});
