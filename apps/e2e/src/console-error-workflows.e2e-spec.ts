import {
  chainOf,
  ConsoleBrowser,
  createMember,
  createOrganization,
  createProject,
  createWorkflow,
  expectData,
  finished,
  getWorkflow,
  type MemberFixture,
  nodes,
  type OrganizationFixture,
  publishWorkflow,
  runningStack,
  startRun,
  waitFor,
} from '#testing';
import type { Page } from 'playwright-core';

/**
 * Error workflows on the console: picked in the editor's settings (and kept when the draft is saved
 * again), and the failed run and its error workflow's run linking to each other.
 */
describe('console: error workflows', () => {
  const stack = runningStack();
  let browser: ConsoleBrowser;
  let org: OrganizationFixture;
  let member: MemberFixture;
  let page: Page;
  let projectId: string;

  beforeAll(async () => {
    [browser, org] = await Promise.all([
      ConsoleBrowser.launch(stack.baseUrl),
      createOrganization(stack, { name: 'Errors' }),
    ]);
    [member, projectId] = await Promise.all([
      createMember(stack, org.organizationId, 'member'),
      createProject(org.api, 'Orders'),
    ]);
    page = await browser.signIn(member.email, member.password);
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('picks the error workflow in the editor, and links the failed run and its error run', async () => {
    const handlerId = await createWorkflow(
      org.api,
      projectId,
      chainOf(nodes.trigger('t', { kind: 'manual' })),
      {
        name: 'On failure',
      },
    );
    const failing = nodes.condition('check', [
      { left: 'a', operator: 'matches', right: '{{trigger.x}}(?=a)' },
    ]);
    const workflowId = await createWorkflow(
      org.api,
      projectId,
      { ...chainOf(nodes.trigger('t'), failing), settings: { onError: 'stop' } },
      { name: 'Fragile', publish: false },
    );

    await page.goto(`/workflows/${workflowId}`);
    await page.getByText('Settings', { exact: true }).click();
    await page.getByLabel('Error workflow').selectOption({ label: 'On failure' });
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('button', { name: 'Draft saved' }).waitFor();
    expect((await getWorkflow(org.api, workflowId)).diagram.settings).toEqual({
      onError: 'stop',
      errorWorkflowId: handlerId,
    });

    // Saving again after a change to a node keeps the settings.
    await page.locator('[data-testid="node-check"]').click();
    await page.getByLabel('Left (required)').fill('b');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('button', { name: 'Draft saved' }).waitFor();
    expect((await getWorkflow(org.api, workflowId)).diagram.settings).toEqual({
      onError: 'stop',
      errorWorkflowId: handlerId,
    });

    await publishWorkflow(org.api, workflowId);
    const failed = await finished(org.api, expectData(await startRun(org.api, workflowId, {}), 201).id);
    expect(failed.status).toBe('errored');
    const errorRunId = await waitFor(
      async () => {
        const { data } = await org.api.GET('/api/v1/runs/{id}', { params: { path: { id: failed.id } } });
        return data?.errorWorkflow?.runId ?? undefined;
      },
      { what: 'the error workflow run' },
    );

    await page.goto(`/runs/${failed.id}`);
    await page.getByText('Its error workflow started').waitFor();
    await page.getByRole('link', { name: `run ${errorRunId.slice(-8)}` }).click();
    await page.getByRole('heading', { name: `Run ${errorRunId.slice(-8)}` }).waitFor();
    await page.getByRole('link', { name: `failed run ${failed.id.slice(-8)}` }).click();
    await page.getByRole('heading', { name: `Run ${failed.id.slice(-8)}` }).waitFor();
  });
});
