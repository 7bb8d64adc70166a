import {
  chainOf,
  ConsoleBrowser,
  createMember,
  createOrganization,
  createProject,
  createWorkflow,
  edge,
  expectData,
  finished,
  getWorkflow,
  type MemberFixture,
  nodes,
  type OrganizationFixture,
  ScriptedModel,
  startRun,
  type TestDiagram,
  TestStack,
} from '#testing';
import type { Page } from 'playwright-core';

/**
 * The console's Assistant panel in Chromium against a stack whose model is the scripted one: a change
 * described in the editor, its proposals shown (the invalid one marked, the valid one beside the draft
 * with its added node marked), applied as the draft; a failed run explained from its page; a new
 * workflow drafted from the workflows page and created in the picked project.
 */
describe('console: the workflow assistant', () => {
  let stack: TestStack;
  let model: ScriptedModel;
  let browser: ConsoleBrowser;
  let org: OrganizationFixture;
  let member: MemberFixture;
  let page: Page;
  let projectId: string;

  beforeAll(async () => {
    model = await ScriptedModel.start();
    stack = await TestStack.start(model.gatewayEnv, { allInOne: true });
    browser = await ConsoleBrowser.launch(stack.baseUrl);
    org = await createOrganization(stack.description, { name: 'Assisted' });
    member = await createMember(stack.description, org.organizationId, 'member');
    projectId = await createProject(org.api, 'Naps');
    page = await browser.signIn(member.email, member.password);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await model?.stop();
  });

  afterEach(() => model.clear());

  async function check(target: Page, screenshot: string): Promise<void> {
    expect(await browser.accessibilityViolations(target)).toEqual([]);
    expect(browser.securityPolicyViolations).toEqual([]);
    await browser.screenshot(target, screenshot);
  }

  const panelOf = (target: Page) => target.getByRole('region', { name: 'Assistant', exact: true });

  it('describes a change in the editor, shows the proposal beside the draft, and applies it as the draft', async () => {
    const workflowId = await createWorkflow(
      org.api,
      projectId,
      chainOf(nodes.trigger('start'), nodes.delay('wait', 1)),
      { name: 'Nap', publish: false },
    );
    const longer: TestDiagram = {
      nodes: [nodes.trigger('start'), nodes.delay('wait', 1), nodes.delay('again', 2)],
      edges: [edge('e0', 'start', 'wait'), edge('e1', 'wait', 'again')],
    };
    const noTrigger: TestDiagram = { nodes: [nodes.delay('wait', 1), nodes.delay('again', 2)], edges: [] };
    model.queue(
      { toolCalls: [{ name: 'get_workflow', arguments: {} }] },
      {
        toolCalls: [
          { name: 'propose_workflow', arguments: { name: 'Nap', diagram: noTrigger, explanation: 'Waits.' } },
        ],
      },
      {
        toolCalls: [
          {
            name: 'propose_workflow',
            arguments: {
              name: 'Nap',
              diagram: longer,
              explanation: 'Waits two more seconds after the wait.',
            },
          },
        ],
      },
      { text: 'I added a second wait after the first one.' },
    );
    const before = model.calls.length;

    await page.goto(`/workflows/${workflowId}`);
    await page.getByRole('button', { name: 'Assistant', exact: true }).click();
    const panel = panelOf(page);
    await panel.getByLabel('Describe what you want').fill('Wait two more seconds after the first wait.');
    await panel.getByRole('button', { name: 'Send' }).click();
    await panel.getByText('I added a second wait after the first one.').waitFor();

    // The assistant was told which workflow's draft it edits.
    expect(String(model.calls[before]!.messages[0]!.content)).toContain(workflowId);
    await panel.getByText('Read the workflow').waitFor();
    // The first proposal would not publish: shown, marked, with its issue; the valid one is offered.
    const firstIssues = panel.getByRole('list', { name: 'Issues of proposal 1' }).first();
    expect(await firstIssues.textContent()).toMatch(/no trigger node/);
    const proposal = panel.getByTestId('assistant-proposal');
    await proposal.getByRole('heading', { name: 'Proposal 2: Nap' }).waitFor();
    await proposal.getByText('Valid', { exact: true }).waitFor();
    expect(await proposal.getByRole('list', { name: 'Changes' }).textContent()).toBe('again (delay): added');
    expect(await proposal.getByTestId('proposal-summary').textContent()).toBe(
      'Compared with the current draft: 1 added, 0 changed, 0 removed; 1 edge added, 0 removed.',
    );
    await proposal
      .getByRole('group', { name: 'Proposed diagram' })
      .getByRole('group', { name: 'again (delay): added' })
      .waitFor();
    await proposal
      .getByRole('group', { name: 'Current draft' })
      .getByRole('group', { name: 'wait (delay)', exact: true })
      .waitFor();
    // The turn's tokens: four model calls at the scripted 10 in and 5 out.
    await panel.getByText('This turn: 60 tokens (40 in, 20 out)').waitFor();
    expect(await panel.getByTestId('assistant-total-tokens').textContent()).toBe(
      'This conversation: 60 tokens (40 in, 20 out)',
    );
    await check(page, 'assistant-proposal');

    // Showing the invalid proposal: it cannot be applied.
    await panel.getByRole('button', { name: 'Show proposal 1' }).click();
    await proposal.getByRole('heading', { name: 'Proposal 1: Nap' }).waitFor();
    await proposal.getByText(/Not valid:/).waitFor();
    expect(await proposal.getByRole('button', { name: 'Apply as draft' }).count()).toBe(0);
    await panel.getByRole('button', { name: 'Show proposal 2' }).click();

    await proposal.getByRole('button', { name: 'Apply as draft' }).click();
    await panel
      .getByRole('status')
      .getByText(/^Applied: the proposal is now the draft/)
      .waitFor();
    const draft = (await getWorkflow(member.api, workflowId)).diagram;
    expect(draft.nodes.map((node) => node.id)).toEqual(['start', 'wait', 'again']);
    expect(draft.edges).toContainEqual(expect.objectContaining({ source: 'wait', target: 'again' }));
    // Laid out as drawn, so the editor opens it in place.
    expect(draft.nodes.every((node) => typeof node.position === 'object')).toBe(true);
    // The editor shows the new draft, saved; publishing stays a separate act.
    await page.getByRole('button', { name: 'Draft saved' }).waitFor();
    await page.locator('.editor [data-testid="node-again"]').waitFor();
    expect((await getWorkflow(member.api, workflowId)).publishedVersion).toBeNull();
    // The draft now is the proposal: nothing left to change.
    await proposal.getByText(/no node changes/).waitFor();
  });

  it('explains a failed run from its page, asking with the run, and applies the fix it proposes', async () => {
    const failing = (right: string) =>
      chainOf(nodes.trigger('t'), nodes.condition('check', [{ left: 'a', operator: 'matches', right }]));
    const workflowId = await createWorkflow(org.api, projectId, failing('{{trigger.x}}(?=a)'), {
      name: 'Fragile',
    });
    const failed = await finished(org.api, expectData(await startRun(org.api, workflowId, {}), 201).id);
    expect(failed.status).toBe('errored');
    model.queue(
      { toolCalls: [{ name: 'get_run', arguments: { id: failed.id } }] },
      {
        toolCalls: [
          {
            name: 'propose_workflow',
            arguments: {
              name: 'Fragile',
              diagram: failing('{{trigger.x}}a'),
              explanation: 'Matches without the lookahead.',
            },
          },
        ],
      },
      { text: 'The step check failed: its pattern has a lookahead, which is not supported. Remove "(?=a)".' },
    );
    const before = model.calls.length;

    await page.goto(`/runs/${failed.id}`);
    await page.getByRole('button', { name: 'Explain this failure' }).click();
    const panel = panelOf(page);
    await panel.getByText('Explain why this run failed and suggest a fix.').waitFor();
    await panel.getByText(/^The step check failed/).waitFor();
    await panel.getByText('Read the run').waitFor();
    await panel.getByText('This turn: 45 tokens (30 in, 15 out)').waitFor();

    // The run and its workflow went with the question: the service names both to the model.
    const system = String(model.calls[before]!.messages[0]!.content);
    expect(system).toContain(failed.id);
    expect(system).toContain(workflowId);
    expect(JSON.stringify(model.calls[before]!.messages)).toContain(
      'Explain why this run failed and suggest a fix.',
    );

    // The fix, beside the workflow's draft: the condition changed.
    const proposal = panel.getByTestId('assistant-proposal');
    expect(await proposal.getByRole('list', { name: 'Changes' }).textContent()).toBe(
      'check (condition): changed',
    );
    await proposal
      .getByRole('group', { name: 'Current draft' })
      .getByRole('group', { name: 'check (condition): changed' })
      .waitFor();
    await check(page, 'assistant-explain');
    await proposal.getByRole('button', { name: 'Apply as draft' }).click();
    await panel
      .getByRole('status')
      .getByText(/^Applied: the proposal is now the draft of Fragile/)
      .waitFor();
    const applied = await getWorkflow(member.api, workflowId);
    expect(applied.diagram.nodes[1]!.data.properties).toEqual({
      conditions: [{ left: 'a', operator: 'matches', right: '{{trigger.x}}a' }],
    });
    // The live version is still the one that failed until the member publishes.
    expect(applied.publishedVersion).toBe(1);
  });

  it('drafts a new workflow on the workflows page and creates it in the picked project', async () => {
    const opsId = await createProject(org.api, 'Ops');
    model.queue(
      {
        toolCalls: [
          {
            name: 'propose_workflow',
            arguments: {
              name: 'Morning nap',
              diagram: chainOf(nodes.trigger('start'), nodes.delay('wait', 1)),
              explanation: 'Waits a second.',
            },
          },
        ],
      },
      { text: 'Here is a workflow that waits a second.' },
    );
    const before = model.calls.length;

    await page.goto('/workflows');
    await page.getByRole('button', { name: 'Draft a workflow with the assistant' }).click();
    const panel = panelOf(page);
    await panel.getByLabel('Project').selectOption({ label: 'Ops' });
    await panel.getByLabel('Describe what you want').fill('A workflow that waits a second.');
    await panel.getByRole('button', { name: 'Send' }).click();
    await panel.getByText('Here is a workflow that waits a second.').waitFor();
    expect(String(model.calls[before]!.messages[0]!.content)).toContain(opsId);
    const proposal = panel.getByTestId('assistant-proposal');
    expect(await proposal.getByTestId('proposal-summary').textContent()).toBe(
      'A new workflow of 2 nodes and 1 edge.',
    );
    await proposal.getByRole('group', { name: 'start (trigger): added' }).waitFor();
    await check(page, 'assistant-new-workflow');

    await proposal.getByRole('button', { name: 'Create workflow' }).click();
    await page.getByRole('heading', { name: 'Morning nap', level: 1 }).waitFor();
    const workflowId = new URL(page.url()).pathname.split('/').at(-1)!;
    const created = await getWorkflow(member.api, workflowId);
    expect(created.projectId).toBe(opsId);
    expect(created.diagram.nodes.map((node) => node.id)).toEqual(['start', 'wait']);
    expect(created.publishedVersion).toBeNull();
  });
});
