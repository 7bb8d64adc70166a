import {
  chainOf,
  ConsoleBrowser,
  createConnection,
  createMember,
  createOrganization,
  createProject,
  createWorkflow,
  expectData,
  finished,
  getWorkflow,
  HttpTarget,
  type MemberFixture,
  nodes,
  type OrganizationFixture,
  runningStack,
  startRun,
  waitFor,
} from '#testing';
import type { Page } from 'playwright-core';

/**
 * Flow control on the console (docs/flow-control.md): a concurrency limit by key and a priority set in
 * the editor's settings, saved and published; then a run held at that limit, its page saying what it
 * waits for, and the dashboard's "Waiting on limits" listing it until the run ahead of it ends.
 */
describe('console: flow control', () => {
  const stack = runningStack();
  let browser: ConsoleBrowser;
  let target: HttpTarget;
  let org: OrganizationFixture;
  let member: MemberFixture;
  let page: Page;
  let projectId: string;
  let connectionId: string;

  const waiting = () => page.getByRole('region', { name: 'Waiting on limits' });
  const runStatus = (status: string) =>
    page.locator('.page-header .badge', { hasText: new RegExp(`^${status}$`) }).waitFor();

  beforeAll(async () => {
    [browser, org, target] = await Promise.all([
      ConsoleBrowser.launch(stack.baseUrl),
      createOrganization(stack, { name: 'Limits' }),
      HttpTarget.start(),
    ]);
    [member, { connectionId }, projectId] = await Promise.all([
      createMember(stack, org.organizationId, 'member'),
      createConnection(stack, org.organizationId, 'http', { name: 'Shop' }),
      createProject(org.api, 'Orders'),
    ]);
    page = await browser.signIn(member.email, member.password);
  });

  afterAll(async () => {
    await browser?.close();
    await target?.stop();
  });

  async function check(screenshot: string): Promise<void> {
    expect(await browser.accessibilityViolations(page)).toEqual([]);
    expect(browser.securityPolicyViolations).toEqual([]);
    await browser.screenshot(page, screenshot);
  }

  it('sets a limit by key and a priority in the editor, then shows a run held at it', async () => {
    // A fresh organization: nothing waits yet.
    await waiting().getByText('No run is waiting on a limit.').waitFor();

    const gate = target.hold('/slow');
    const workflowId = await createWorkflow(
      org.api,
      projectId,
      chainOf(nodes.trigger('t'), nodes.httpCall('slow', `${target.url}${gate.path}`, { connectionId })),
      { name: 'One per customer', publish: false },
    );

    await page.goto(`/workflows/${workflowId}`);
    await page.getByText('Settings', { exact: true }).click();
    await page.getByLabel('Concurrency limit', { exact: true }).fill('1');
    await page.getByLabel('Concurrency key', { exact: true }).fill('{{trigger.k}}');
    await page.getByLabel('Priority', { exact: true }).fill('{{trigger.p}}');
    // A gate left empty is no setting, even after something was typed in it.
    await page.getByLabel('Debounce period (seconds)', { exact: true }).fill('30');
    await page.getByLabel('Debounce period (seconds)', { exact: true }).fill('');
    await check('editor-flow-control');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('button', { name: 'Draft saved' }).waitFor();
    const settings = { concurrency: { limit: 1, key: '{{trigger.k}}' }, priority: '{{trigger.p}}' };
    expect((await getWorkflow(org.api, workflowId)).diagram.settings).toEqual(settings);

    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page
      .getByRole('status')
      .getByText(/^Published version 1 /)
      .waitFor();
    const version = expectData(
      await org.api.GET('/api/v1/workflows/{id}/versions/{number}', {
        params: { path: { id: workflowId, number: '1' } },
      }),
      200,
    );
    expect(version.diagram.settings).toEqual(settings);

    const start = async (input: unknown) =>
      expectData(await startRun(org.api, workflowId, { input: JSON.stringify(input) }), 201);
    const first = await start({ k: 'acme', p: 0 });
    await waitFor(() => (target.requestsTo(gate.path).length === 1 ? true : undefined), {
      what: 'the first run in its call',
    });
    const second = await start({ k: 'acme', p: 5 });
    expect(second).toMatchObject({ status: 'queued', heldBy: 'concurrency', heldKey: 'acme' });
    // Another key is counted apart: its run goes at once.
    const other = await start({ k: 'globex', p: 0 });
    await waitFor(() => (target.requestsTo(gate.path).length === 2 ? true : undefined), {
      what: "the other key's run in its call",
    });

    await page.goto(`/runs/${second.id}`);
    await page.getByRole('heading', { name: `Run ${second.id.slice(-8)}` }).waitFor();
    await runStatus('queued');
    const held = page.getByTestId('run-held');
    await held.waitFor();
    expect(await held.getAttribute('role')).toBe('status');
    expect(await held.textContent()).toMatch(/^Waiting: concurrency limit \(key “acme”\)\. It starts when /);
    await check('run-held');

    await page.goto(`/runs/${first.id}`);
    await runStatus('running');
    expect(await page.getByTestId('run-held').count()).toBe(0);

    await waitFor(
      async () => {
        const dashboard = expectData(await org.api.GET('/api/v1/dashboard'), 200);
        return dashboard.held.some((group) => group.workflowId === workflowId) ? true : undefined;
      },
      { what: 'the held run on the dashboard' },
    );
    await page.goto('/');
    const row = waiting().getByRole('row').filter({ hasText: 'One per customer' });
    await row.waitFor();
    expect((await row.getByRole('cell').allTextContents()).slice(0, 4)).toEqual([
      'One per customer',
      'concurrency limit',
      'acme',
      '1',
    ]);
    expect(await waiting().getByRole('row').count()).toBe(2);
    await check('dashboard-held');
    await row.getByRole('link', { name: 'One per customer' }).click();
    await page.waitForURL(`**/workflows/${workflowId}**`);

    // Once the run ahead of it ends, the held run starts: its page, open all along, says so live.
    await page.goto(`/runs/${second.id}`);
    await page.getByTestId('run-held').waitFor();
    gate.release();
    await runStatus('complete');
    expect(await page.getByTestId('run-held').count()).toBe(0);
    const runs = await Promise.all([first.id, second.id, other.id].map((id) => finished(org.api, id)));
    expect(runs.map((run) => run.status)).toEqual(['complete', 'complete', 'complete']);
    expect(runs[1]!.heldBy).toBeUndefined();

    await page.goto('/');
    await waiting().getByText('No run is waiting on a limit.').waitFor();
  }, 90_000);
});
