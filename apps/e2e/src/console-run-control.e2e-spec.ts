import {
  chainOf,
  ConsoleBrowser,
  edge,
  createConnection,
  createMember,
  createOrganization,
  createProject,
  createWorkflow,
  expectData,
  finished,
  HttpTarget,
  type MemberFixture,
  nodes,
  type OrganizationFixture,
  runningStack,
  startRun,
  stepOf,
  type TestDiagram,
  waitFor,
} from '#testing';
import type { Page } from 'playwright-core';

/**
 * Run control on the console's run page, against the shared stack (which lets actions call the local
 * app): a running run cancelled with a reason, paused and resumed, rerun from a step to a new run page
 * with carried-over steps, and cancelled with a roll back that shows its compensations; a `workflow`
 * step's link to its child run and the child's link back; a loop's body on the diagram, its step's
 * iterations and an iteration's link back.
 */
describe('console: run control', () => {
  const stack = runningStack();
  let browser: ConsoleBrowser;
  let target: HttpTarget;
  let org: OrganizationFixture;
  let member: MemberFixture;
  let page: Page;
  let projectId: string;
  let connectionId: string;
  let paths = 0;

  const path = (name: string) => `/${name}-${(paths += 1)}`;
  const call = (id: string, at: string, undo?: string) =>
    nodes.httpCall(id, `${target.url}${at}`, {
      connectionId,
      ...(undo === undefined ? {} : { undoUrl: `${target.url}${undo}` }),
    });
  const callsTo = (at: string) => target.requestsTo(at).length;
  const reached = (at: string) =>
    waitFor(() => (callsTo(at) >= 1 ? true : undefined), { what: `the call to ${at}` });

  /** Starts a run of a new workflow through the API and opens its page. */
  async function openRun(diagram: TestDiagram): Promise<string> {
    const workflowId = await createWorkflow(org.api, projectId, diagram);
    const run = expectData(await startRun(org.api, workflowId, { input: '{"order":7}' }), 201);
    await page.goto(`/runs/${run.id}`);
    await page.getByRole('heading', { name: `Run ${run.id.slice(-8)}` }).waitFor();
    return run.id;
  }

  const node = (id: string, status: string) =>
    page.locator(`[data-testid="node-${id}"][data-status="${status}"]`).waitFor({ state: 'attached' });
  const runStatus = (status: string) =>
    page.locator('.page-header .badge', { hasText: new RegExp(`^${status}$`) }).waitFor();
  const controls = () => page.getByRole('group', { name: 'Run control' });

  beforeAll(async () => {
    [browser, org, target] = await Promise.all([
      ConsoleBrowser.launch(stack.baseUrl),
      createOrganization(stack, { name: 'Control' }),
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

  it('links a workflow step to the child run it started, and the child run back to that step', async () => {
    const child = await createWorkflow(org.api, projectId, chainOf(nodes.trigger('t')), { name: 'Shared' });
    const parentId = await openRun(chainOf(nodes.trigger('t'), nodes.callWorkflow('call', child)));
    await runStatus('complete');
    const childRunId = stepOf(await finished(org.api, parentId), 'call')!.output!.runId!;

    const step = page.getByTestId('step-call');
    await step.locator('summary').click();
    await check('run-child-link');
    await step.getByRole('link', { name: `child run ${childRunId.slice(-8)}` }).click();
    await page.getByRole('heading', { name: `Run ${childRunId.slice(-8)}` }).waitFor();

    await page.getByRole('link', { name: `call of run ${parentId.slice(-8)}` }).click();
    await page.getByRole('heading', { name: `Run ${parentId.slice(-8)}` }).waitFor();
    expect(new URL(page.url()).hash).toBe('#step-call');
  });

  it("draws a loop's body, lists its iterations on its step, and links an iteration back", async () => {
    const runId = await openRun({
      nodes: [
        nodes.trigger('t'),
        nodes.loop('each', '["a","b","c"]', { concurrency: 2 }),
        nodes.condition('check', [{ left: '{{loop.item}}', operator: 'is_not_empty' }]),
      ],
      edges: [
        edge('e1', 't', 'each'),
        edge('e2', 'each', 'check', 'body'),
        edge('e3', 'check', 'each', 'true', 'done'),
      ],
    });
    await runStatus('complete');
    // The run's diagram shows the body apart, naming its loop; the body never ran in the run itself.
    await page.getByTestId('node-check').getByText('in loop each').waitFor();
    const step = page.getByTestId('step-each');
    await step.locator('summary').click();
    const iterations = step.getByRole('region', { name: 'Iterations of each' });
    for (const index of [0, 1, 2]) await iterations.getByTestId(`iteration-${index}`).waitFor();
    await check('run-loop-iterations');
    await iterations.getByRole('link', { name: /^iteration 1 · run / }).click();
    await page.getByText('(iteration 1)').waitFor();
    // The iteration's steps are its own: the item, then the body.
    await page.getByTestId('step-each').waitFor();
    await page.getByTestId('step-check').waitFor();
    await page.getByRole('link', { name: `each of run ${runId.slice(-8)}` }).click();
    await page.getByRole('heading', { name: `Run ${runId.slice(-8)}` }).waitFor();
  });

  it('cancels a running run with a reason: it shows terminated and the stopped step says who and why', async () => {
    const gate = target.hold(path('slow'));
    const after = path('after');
    const runId = await openRun(chainOf(nodes.trigger('t'), call('slow', gate.path), call('next', after)));
    await reached(gate.path);
    await node('slow', 'running');

    await controls().getByRole('button', { name: 'Cancel…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel the run' });
    await dialog.getByLabel('Reason').fill('wrong deploy');
    // No action of this diagram says how it is undone: no roll back offered.
    expect(await dialog.getByLabel(/^Roll back/).count()).toBe(0);
    await check('run-cancel');
    await dialog.getByRole('button', { name: 'Cancel run' }).click();
    await dialog.waitFor({ state: 'detached' });

    await runStatus('terminated');
    const message = `Cancelled by member ${member.userId}: wrong deploy`;
    await page.getByRole('alert').filter({ hasText: 'The run was stopped.' }).getByText(message).waitFor();
    await node('slow', 'error');
    await page.getByTestId('step-slow').getByText(message).waitFor();
    // Ended: nothing left to pause or cancel, and it can be rerun.
    expect(await controls().getByRole('button', { name: 'Cancel…' }).count()).toBe(0);
    await controls().getByRole('button', { name: 'Rerun…' }).waitFor();
    gate.release();
    const run = await finished(org.api, runId);
    expect(run.status).toBe('terminated');
    expect(callsTo(after)).toBe(0);
  });

  it('pauses a running run (pausing while its step finishes, then paused) and resumes it', async () => {
    const gate = target.hold(path('slow'));
    const after = path('after');
    const runId = await openRun(chainOf(nodes.trigger('t'), call('slow', gate.path), call('next', after)));
    await reached(gate.path);

    await controls().getByRole('button', { name: 'Pause' }).click();
    await runStatus('waiting for pause');
    await page
      .getByRole('status')
      .getByText(/^Pausing: the steps already running finish/)
      .waitFor();
    gate.release();
    await runStatus('paused');
    await node('slow', 'done');
    await page
      .getByRole('status')
      .getByText(/^Paused: nothing starts until it is resumed/)
      .waitFor();
    expect(await controls().getByRole('button', { name: 'Pause' }).count()).toBe(0);
    await check('run-paused');
    expect(callsTo(after)).toBe(0);

    await controls().getByRole('button', { name: 'Resume' }).click();
    await runStatus('complete');
    await node('next', 'done');
    expect(callsTo(after)).toBe(1);
    expect((await finished(org.api, runId)).status).toBe('complete');
  });

  it('reruns a failed run from a chosen step: the new run page opens with the steps carried over', async () => {
    const [first, flaky] = [path('first'), path('flaky')];
    target.respond(flaky, { status: 500, body: { error: 'down' } });
    const runId = await openRun(chainOf(nodes.trigger('t'), call('a', first), call('b', flaky)));
    await runStatus('errored');
    target.respond(flaky, { body: { ok: true } });

    await controls().getByRole('button', { name: 'Rerun…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rerun' });
    await dialog.getByLabel('From the first failure (b)').waitFor();
    await dialog.getByLabel('From a step').check();
    await dialog.getByLabel('Step', { exact: true }).selectOption('b');
    await check('run-rerun');
    await dialog.getByRole('button', { name: 'Rerun' }).click();

    await page.waitForURL((url) => !url.pathname.endsWith(runId));
    const rerunId = page.url().split('/runs/')[1]!;
    await page.getByRole('heading', { name: `Run ${rerunId.slice(-8)}` }).waitFor();
    await runStatus('complete');
    await page
      .getByRole('link', { name: `run ${runId.slice(-8)}` })
      .first()
      .waitFor();
    await node('a', 'carried');
    await node('b', 'done');
    const carried = page.getByTestId('step-a');
    await carried.getByText(`carried over from run ${runId.slice(-8)}`).waitFor();
    await page
      .getByRole('region', { name: 'Timeline' })
      .getByText(`carried over from run ${runId.slice(-8)}`)
      .waitFor();
    await check('run-rerun-carried');
    // The carried step was not executed again: the app saw a once in all.
    expect(callsTo(first)).toBe(1);
    const rerun = await finished(org.api, rerunId);
    expect(rerun.rerunOf).toBe(runId);
    expect(stepOf(rerun, 'a')?.carriedFrom).toBe(runId);

    // The old run is one click away, and reruns from the trigger with a new input too.
    await carried.locator('summary').click();
    await carried.getByRole('link', { name: `run ${runId.slice(-8)}` }).click();
    await page.getByRole('heading', { name: `Run ${runId.slice(-8)}` }).waitFor();
    await controls().getByRole('button', { name: 'Rerun…' }).click();
    await dialog.getByLabel('From the trigger with a new input').check();
    expect(await dialog.getByLabel('New input', { exact: true }).inputValue()).toBe('{"order":7}');
    await dialog.getByLabel('New input', { exact: true }).fill('{"order":8}');
    await dialog.getByRole('button', { name: 'Rerun' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith(runId) && !url.pathname.endsWith(rerunId));
    await runStatus('complete');
    await page.getByRole('region', { name: 'Input' }).getByText('{"order":8}').waitFor();
    expect(callsTo(first)).toBe(2);
  });

  it("cancels with a roll back: the run's compensations show as undo steps", async () => {
    const gate = target.hold(path('slow'));
    const [pay, undoPay] = [path('pay'), path('undo-pay')];
    const runId = await openRun(
      chainOf(nodes.trigger('t'), call('pay', pay, undoPay), call('slow', gate.path)),
    );
    await reached(gate.path);

    await controls().getByRole('button', { name: 'Cancel…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel the run' });
    await dialog.getByLabel('Reason').fill('customer changed their mind');
    await dialog.getByLabel(/^Roll back/).check();
    await dialog.getByRole('button', { name: 'Cancel run' }).click();

    await runStatus('terminated');
    await node('pay', 'undone');
    const undo = page.getByTestId('step-undo:pay');
    await undo.getByText('undo pay', { exact: true }).waitFor();
    await undo.locator('.badge', { hasText: /^done$/ }).waitFor();
    await page.getByRole('region', { name: 'Timeline' }).getByText('undo pay', { exact: true }).waitFor();
    // The step it undid is still there, done, apart from its compensation.
    await page
      .getByTestId('step-pay')
      .locator('.badge', { hasText: /^done$/ })
      .waitFor();
    await check('run-rolled-back');
    expect(callsTo(undoPay)).toBe(1);
    gate.release();
    const run = await finished(org.api, runId);
    expect(run.steps.filter((step) => step.compensation).map((step) => [step.nodeId, step.status])).toEqual([
      ['pay', 'done'],
    ]);
  });

  it("cancels all the runs a filter matches from the runs list, with the operation's progress", async () => {
    const gate = target.hold(path('slow'));
    const workflowId = await createWorkflow(
      org.api,
      projectId,
      chainOf(nodes.trigger('t'), call('slow', gate.path)),
    );
    const started = await Promise.all(
      [1, 2, 3].map(async () => expectData(await startRun(org.api, workflowId, {}), 201).id),
    );
    await waitFor(() => (callsTo(gate.path) >= 3 ? true : undefined), { what: 'three held calls' });
    // One that ended already: the filter leaves it out.
    const ended = expectData(
      await org.api.POST('/api/v1/runs/{id}/cancel', { params: { path: { id: started[0]! } }, body: {} }),
      200,
    );
    expect(ended.status).toBe('terminated');

    await page.goto(`/workflows/${workflowId}?tab=runs`);
    const statuses = page.getByRole('group', { name: 'Status' });
    await statuses.getByLabel('running').check();
    await waitFor(async () => ((await page.getByRole('row').count()) === 3 ? true : undefined), {
      what: 'the two running runs listed',
    });
    await page.getByRole('button', { name: 'Cancel all matching…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel all matching runs' });
    await dialog.getByLabel('Reason').fill('flood');
    await dialog.getByRole('button', { name: 'Cancel them' }).click();
    const progress = page.getByRole('region', { name: 'Bulk operation' });
    await progress.getByText('Cancelling finished').waitFor();
    expect(await progress.getByRole('status').textContent()).toContain(
      '2 of 2 runs settled: 2 done, 0 failed.',
    );
    await page.getByText('No runs match these filters.').waitFor();
    await check('runs-bulk-cancel');
    await statuses.getByLabel('running').uncheck();
    await statuses.getByLabel('terminated').check();
    await waitFor(async () => ((await page.getByRole('row').count()) === 4 ? true : undefined), {
      what: 'the three terminated runs listed',
    });
    for (const runId of started.slice(1)) {
      const run = await finished(org.api, runId);
      expect(run).toMatchObject({
        status: 'terminated',
        error: `Cancelled by member ${member.userId}: flood`,
      });
    }
    gate.release();
  });
});
