import {
  ConsoleBrowser,
  chainOf,
  createConnection,
  createDatabaseIn,
  createMember,
  createOrganization,
  createProject,
  createSkill,
  createWorkflow,
  deliver,
  HttpTarget,
  type MemberFixture,
  nodes,
  type OrganizationFixture,
  runReaches,
  ScriptedModel,
  signedDelivery,
  startRun,
  TestStack,
  waitFor,
} from '#testing';
import type { Page } from 'playwright-core';

/**
 * The console's agent pages against a stack of its own whose model is the scripted one: an agent made
 * with the grant pickers, an ask-first call approved from the inbox while the run page follows the run
 * live, a streamed chat and the agent's threads; and an app event replayed from a workflow's Events tab.
 */
describe('console: agents, approvals and events', () => {
  let stack: TestStack;
  let model: ScriptedModel;
  let target: HttpTarget;
  let browser: ConsoleBrowser;
  let org: OrganizationFixture;
  let member: MemberFixture;
  let page: Page;
  let connectionId: string;
  let agentId: string;
  let projectId: string;

  beforeAll(async () => {
    [model, target] = await Promise.all([ScriptedModel.start(), HttpTarget.start()]);
    stack = await TestStack.start(
      {
        ...model.gatewayEnv,
        ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true',
        RUNNER_SWEEP_INTERVAL_MS: '200',
        DASHBOARD_TIMEOUT_MS: '8000',
      },
      { allInOne: true },
    );
    browser = await ConsoleBrowser.launch(stack.baseUrl);
    org = await createOrganization(stack.description, { name: 'Agents inc' });
    member = await createMember(stack.description, org.organizationId, 'member');
    ({ connectionId } = await createConnection(stack.description, org.organizationId, 'http', {
      name: 'Api',
    }));
    projectId = await createProject(org.api, 'Support');
    page = await browser.signIn(member.email, member.password);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await Promise.all([model?.stop(), target?.stop()]);
  });

  async function check(target: Page, screenshot: string): Promise<void> {
    expect(await browser.accessibilityViolations(target)).toEqual([]);
    expect(browser.securityPolicyViolations).toEqual([]);
    await browser.screenshot(target, screenshot);
  }

  it('creates an agent with the grant pickers', async () => {
    const skillId = await createSkill(org.api, {
      name: 'tone',
      description: 'How we write',
      instructions: 'Be brief.',
    });
    const databaseId = await createDatabaseIn(org.api, 'tickets');
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByText('No agents yet.').waitFor();
    expect(await browser.accessibilityViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'New agent' }).click();
    await page.getByLabel('Name', { exact: true }).fill('careful');
    await page.getByLabel('Instructions').fill('Tell the team through the API.');
    await page.getByLabel('Thinking level').selectOption('low');
    await page.getByLabel('http__request on Api', { exact: true }).check();
    await page.getByLabel('Ask first: http__request on Api').check();
    await page.getByLabel('tone').check();
    await page.getByLabel('Query tickets').check();
    await page.getByLabel('Write to tickets').check();
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('heading', { name: 'Agent careful' }).waitFor();
    agentId = page.url().split('/agents/')[1]!;
    const readAgent = () => org.api.GET('/api/v1/agents/{id}', { params: { path: { id: agentId } } });
    expect((await readAgent()).data).toMatchObject({
      name: 'careful',
      thinkingLevel: 'low',
      apps: [
        { connectionId, integrationId: 'http', actions: ['http__request'], approvals: ['http__request'] },
      ],
      skills: [skillId],
      databases: [databaseId],
      databaseWrites: [databaseId],
    });
    await check(page, 'agent');
    await page.getByLabel('Description').fill('Careful with money');
    await page.getByRole('button', { name: 'Save agent' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    expect((await readAgent()).data?.description).toBe('Careful with money');
  });

  it('shows a run waiting for approval, approved from the inbox, and the run page follows it live', async () => {
    const workflowId = await createWorkflow(
      org.api,
      projectId,
      chainOf(nodes.trigger('start'), nodes.agent('ask', agentId, 'Tell the team.')),
      { name: 'Escalate' },
    );
    model.queue(
      {
        toolCalls: [
          {
            name: 'http__request',
            arguments: { method: 'POST', url: `${target.url}/notify`, body: { n: 1 } },
          },
        ],
      },
      { text: 'The team knows.' },
    );
    const started = await startRun(org.api, workflowId, { input: 'ticket 42' });
    expect(started.response.status).toBe(201);

    await page.goto(`/runs/${started.data!.id}`);
    await page.locator('[data-testid="node-ask"][data-status="waiting"]').waitFor({ state: 'attached' });

    const inbox = await page.context().newPage();
    await inbox.goto('/approvals');
    const card = inbox.getByRole('article', { name: 'Approval of http__request' });
    await card.waitFor();
    expect(await card.textContent()).toContain(`${target.url}/notify`);
    await check(inbox, 'approvals');
    await card.getByRole('button', { name: 'Approve' }).click();
    await inbox
      .getByRole('status')
      .getByText(/^Approved http__request in Escalate/)
      .waitFor();
    await inbox.close();

    // No reload: the run's event stream brings the step and the run to their end.
    await page.locator('[data-testid="node-ask"][data-status="done"]').waitFor({ state: 'attached' });
    await page.getByRole('heading', { name: 'Reply' }).waitFor();
    expect(await page.getByText('The team knows.').count()).toBeGreaterThan(0);
    expect(target.received.filter((request) => request.path === '/notify')).toHaveLength(1);
  });

  it('chats with the agent, streamed, and lists its threads', async () => {
    model.queue({ text: 'Hello, I am careful and brief.' });
    await page.goto(`/agents/${agentId}`);
    await page.getByRole('tab', { name: 'Chat' }).click();
    await page.getByLabel('Message').fill('Who are you?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByTestId('message-assistant').getByText('Hello, I am careful and brief.').waitFor();
    await check(page, 'agent-chat');
    await page.getByRole('tab', { name: 'Threads' }).click();
    await page.getByRole('button', { name: 'Who are you?' }).click();
    await page.getByText('user: Who are you?').waitFor();
    await page.getByRole('button', { name: /^Escalate · run / }).waitFor();
    await check(page, 'agent-threads');
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('link', { name: 'careful' }).waitFor();
    await check(page, 'agents');
  });

  it('denies an ask-first call from the inbox with a reason the agent reads', async () => {
    const workflowId = await createWorkflow(
      org.api,
      projectId,
      chainOf(nodes.trigger('start'), nodes.agent('ask', agentId, 'Refund the order.')),
      { name: 'Refund' },
    );
    model.queue(
      { toolCalls: [{ name: 'http__request', arguments: { method: 'POST', url: `${target.url}/refund` } }] },
      { text: 'I did not refund.' },
    );
    const runId = (await startRun(org.api, workflowId, {})).data!.id;
    await runReaches(org.api, runId, ['waiting'], { what: 'the run to wait for approval' });
    await page.goto('/approvals');
    const card = page.getByRole('article', { name: 'Approval of http__request' });
    await card.getByLabel(/Reason/).fill('Refunds need a manager.');
    await card.getByRole('button', { name: 'Deny' }).click();
    await page
      .getByRole('status')
      .getByText(/^Denied http__request in Refund/)
      .waitFor();
    const run = await runReaches(org.api, runId, ['complete'], { what: 'the run to go on after the denial' });
    expect(JSON.parse(run.steps[1]!.output!.approvals!)).toEqual([
      expect.objectContaining({ status: 'denied', reason: 'Refunds need a manager.' }),
    ]);
    expect(target.received.filter((request) => request.path === '/refund')).toEqual([]);
    await page.goto('/approvals');
    await page.getByText('Nothing waits for a decision.').waitFor();
  });

  it("lists a workflow's app events with each trigger's outcome, and replays one", async () => {
    const hook = await createConnection(stack.description, org.organizationId, 'webhook', { name: 'Shop' });
    const workflowId = await createWorkflow(
      org.api,
      projectId,
      chainOf(nodes.webhook('order', hook.connectionId), nodes.alwaysTrue('check')),
      { name: 'Orders' },
    );
    const delivered = await deliver(
      stack.baseUrl,
      hook.connectionId,
      signedDelivery(hook.secret!, { order: 7 }),
    );
    expect(delivered.status).toBe(202);
    await waitFor(
      async () => {
        const events = await org.api.GET('/api/v1/workflows/{id}/events', {
          params: { path: { id: workflowId } },
        });
        return events.data?.data[0]?.outcomes[0]?.outcome === 'started' ? true : undefined;
      },
      { what: 'the event to start a run' },
    );
    await page.goto(`/workflows/${workflowId}?tab=events`);
    const event = page.getByRole('article').first();
    await event.getByText('webhook/received').waitFor();
    await event.getByText('started').waitFor();
    expect(await event.textContent()).toContain('{"order":7}');
    await check(page, 'events');
    await event.getByRole('button', { name: 'Replay for order' }).click();
    await page.getByText('The event was queued again.').waitFor();
  });
});
