import {
  adminCli,
  ApiClient,
  chainOf,
  ConsoleBrowser,
  createConnection,
  createMember,
  createOrganization,
  createProject,
  createWorkflow,
  deliveriesOf,
  type ErrorBody,
  expectData,
  getWorkflow,
  HttpTarget,
  type MemberFixture,
  type OrganizationFixture,
  nodes,
  PHONE,
  runningStack,
  runToEnd,
  signIn,
  statusOf,
  waitFor,
} from '#testing';
import type { Page } from 'playwright-core';

/**
 * The web console in a real browser (Debian's Chromium through playwright-core) against the shared
 * stack: signing in and switching organizations, building, publishing and running a workflow in the
 * diagram editor, API keys, databases and skills, connections, billing, the phone layout, and an
 * accessibility check (axe, no serious or critical violation) of every page it visits.
 */
describe('console', () => {
  const stack = runningStack();
  let browser: ConsoleBrowser;
  let org: OrganizationFixture;
  let owner: MemberFixture;
  let page: Page;
  let databaseName: string;
  let workflowId: string;

  beforeAll(async () => {
    [browser, org] = await Promise.all([
      ConsoleBrowser.launch(stack.baseUrl),
      createOrganization(stack, { name: 'Acme' }),
    ]);
    owner = await createMember(stack, org.organizationId, 'owner');
  });

  afterAll(async () => {
    await browser?.close();
  });

  /** The page has no serious or critical accessibility violation; then its picture for the docs. */
  async function check(target: Page, screenshot: string): Promise<void> {
    expect(await browser.accessibilityViolations(target)).toEqual([]);
    expect(browser.securityPolicyViolations).toEqual([]);
    await browser.screenshot(target, screenshot);
  }

  const nav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name });

  it('is served at / and at its page addresses, and leaves the API its answers', async () => {
    const html = await fetch(`${stack.baseUrl}/workflows/anything`, { headers: { accept: 'text/html' } });
    expect(html.status).toBe(200);
    expect(await html.text()).toContain('<div id="root">');
    const root = await fetch(`${stack.baseUrl}/`, { headers: { accept: 'text/html' } });
    expect(root.status).toBe(200);
    for (const path of ['/api/v1/nothing-here', '/app/nothing', '/docs/nothing', '/hooks']) {
      const answer = await fetch(`${stack.baseUrl}${path}`, { headers: { accept: 'text/html' } });
      expect([path, answer.status]).toEqual([path, 404]);
      expect(((await answer.json()) as ErrorBody).error.code).toBe('not_found');
    }
    // Not a browser: the contract's 404.
    const api = await fetch(`${stack.baseUrl}/workflows/anything`);
    expect(api.status).toBe(404);
  });

  it('signs a member in, with a refused password said in words, and shows the dashboard', async () => {
    page = await browser.newPage();
    await page.goto('/');
    await page.getByRole('heading', { name: 'Sign in to Flowmesh' }).waitFor();
    await check(page, 'sign-in');
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const refusal = await page.getByRole('alert').textContent();
    expect(refusal).toMatch(/[a-z]{3,}/i);
    expect(refusal).not.toContain('{');
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    expect(await page.getByLabel('Organization').inputValue()).toBe(org.organizationId);
    await page.getByText(`${owner.email} · owner`).waitFor();
    await page.getByRole('heading', { name: 'Needs attention' }).waitFor();
    await page.getByText('Nothing needs you').waitFor();
  });

  it('shows the active organization and switches to another', async () => {
    const other = await createOrganization(stack, { name: 'Beta' });
    await adminCli(
      [
        'user',
        'create',
        '--org',
        other.organizationId,
        '--email',
        owner.email,
        '--password',
        owner.password,
        '--role',
        'member',
      ],
      stack.env,
    );
    await page.reload();
    await page.getByLabel('Organization').selectOption(other.organizationId);
    await page.getByText(`${owner.email} · member`).waitFor();
    // A member of Beta: no API keys page there.
    expect(await nav('API keys').count()).toBe(0);
    await page.getByLabel('Organization').selectOption(org.organizationId);
    await page.getByText(`${owner.email} · owner`).waitFor();
    await nav('API keys').waitFor();
  });

  it('creates a database and runs a batch in the SQL console, with a failing statement named', async () => {
    databaseName = `orders-${Date.now().toString(36)}`;
    await nav('Databases').click();
    await page.getByRole('heading', { name: 'Databases', level: 1 }).waitFor();
    await page.getByText('No databases yet.').waitFor();
    await page.getByLabel('Name', { exact: true }).fill(databaseName);
    await page.getByLabel('Description', { exact: true }).fill('Orders over 100');
    await page.getByRole('button', { name: 'Create database' }).click();
    await check(page, 'databases');
    await page.getByRole('link', { name: databaseName }).click();
    await page.getByRole('heading', { name: `Database ${databaseName}` }).waitFor();
    await page.getByLabel('Description', { exact: true }).fill('Orders over 100, kept');
    await page.getByRole('button', { name: 'Save details' }).click();
    await page.getByText('Saved.').waitFor();
    await page
      .getByLabel('Statements')
      .fill(
        'CREATE TABLE big (amount INTEGER);\nINSERT INTO big VALUES (150), (300);\nSELECT * FROM big ORDER BY amount;',
      );
    await page.getByRole('button', { name: 'Run 3 statements' }).click();
    const result = page.getByRole('table', { name: 'Result of statement 3' });
    await result.waitFor();
    expect(await result.getByRole('cell').allTextContents()).toEqual(['150', '300']);
    await check(page, 'sql-console');
    await page.getByLabel('Statements').fill('DELETE FROM big;\nSELECT * FROM nowhere;');
    await page.getByRole('button', { name: 'Run 2 statements' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('Statement 2 failed').waitFor();
    expect(await alert.textContent()).toContain('SELECT * FROM nowhere');
    expect(await alert.textContent()).not.toContain('"code"');
  });

  it('builds a trigger → condition → database workflow in the diagram editor', async () => {
    await nav('Workflows').click();
    await page.getByText('No projects yet.').waitFor();
    await check(page, 'workflows-empty');
    await page.getByLabel('New project').fill('Sales ops');
    await page.getByRole('button', { name: 'Create project' }).click();
    const project = page.getByRole('region', { name: 'Sales ops' });
    await project.getByLabel('New workflow in Sales ops').fill('Big orders');
    await project.getByRole('button', { name: 'Create workflow' }).click();
    await page.getByRole('heading', { name: 'Big orders', level: 1 }).waitFor();
    workflowId = page.url().split('/workflows/')[1]!.split('?')[0]!;

    await page.getByRole('button', { name: 'Add condition' }).click();
    await page.getByLabel('Left (required)').fill('{{trigger.amount}}');
    await page.getByLabel('Operator (required)').selectOption('greater_than');
    await page.getByLabel('Right').fill('100');
    await page.getByRole('button', { name: 'Add database' }).click();
    // Connect trigger → condition by dragging from one handle to the other…
    await page
      .locator('[data-testid="node-trigger"] .react-flow__handle.source')
      .dragTo(page.locator('[data-testid="node-condition"] .react-flow__handle.target'));
    // …and condition (true) → database with the keyboard-friendly form of the selected node.
    await page.getByTestId('node-condition').click();
    await page.getByLabel('Connect to').selectOption('database');
    await page.getByLabel('When').selectOption('true');
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    // Moved with the keyboard (React Flow moves a selected node with the arrow keys): its place is kept.
    await page.getByTestId('node-trigger').click();
    for (let step = 0; step < 6; step += 1) await page.keyboard.press('ArrowLeft');
    // A node added by mistake, then deleted.
    await page.getByRole('button', { name: 'Add delay' }).click();
    await page.getByRole('button', { name: 'Delete node delay' }).click();
    expect(await page.getByTestId('node-delay').count()).toBe(0);
    // A code node's body is edited in a code box (its schema's `contentMediaType`), then it goes too.
    await page.getByRole('button', { name: 'Add code' }).click();
    const body = page.getByLabel('Code (required)');
    expect(await body.inputValue()).toBe('return trigger;');
    expect(await body.getAttribute('class')).toBe('code');
    await page.getByRole('button', { name: 'Delete node code' }).click();
    expect(await page.getByTestId('node-code').count()).toBe(0);

    // The database node is unfinished: publishing names its problems on the node.
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByTestId('node-database').locator('.problems').waitFor();
    await check(page, 'editor-problems');

    await page.getByTestId('node-database').click();
    await page.getByLabel('Database (required)').selectOption({ label: databaseName });
    await page.getByLabel('Sql (required)').fill('INSERT INTO big VALUES (?)');
    await page.getByLabel('Params (JSON)').fill('["{{trigger.amount}}"]');
    await page.getByLabel('Params (JSON)').blur();
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('button', { name: 'Draft saved' }).waitFor();

    // The layout the editor adds (each node's position) comes back from the API.
    const saved = await getWorkflow(org.api, workflowId);
    expect(saved.diagram.edges).toEqual([
      { id: 'trigger-condition', source: 'trigger', target: 'condition' },
      { id: 'condition-true-database', source: 'condition', target: 'database', sourceHandle: 'true' },
    ]);
    for (const node of saved.diagram.nodes) {
      expect(node.position).toEqual({ x: expect.any(Number), y: expect.any(Number) });
    }
    // The starter trigger sits at x 80 until moved. The document leaves the editor's layout untyped.
    expect((saved.diagram.nodes[0]!.position as { x: number }).x).toBeLessThan(80);
    expect(saved.diagram.nodes.map((node) => node.id)).toEqual(['trigger', 'condition', 'database']);
    await page.reload();
    await page.getByTestId('node-database').waitFor();
    await check(page, 'editor');
  });

  it('publishes with a time zone, pauses and resumes, and shows the version read-only', async () => {
    await page.getByLabel('Time zone').selectOption('Europe/Paris');
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('Published version 1 (Europe/Paris).').waitFor();
    await page.getByText('live v1').waitFor();
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    expect((await getWorkflow(org.api, workflowId)).pausedAt).not.toBeNull();
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    expect((await getWorkflow(org.api, workflowId)).pausedAt).toBeNull();

    await page.getByRole('tab', { name: 'Versions' }).click();
    await page.getByRole('link', { name: 'Version 1' }).click();
    await page.getByRole('heading', { name: 'Version 1 (read-only)' }).waitFor();
    await page.getByText('schedules in Europe/Paris').waitFor();
    await page.getByRole('region', { name: 'Version 1 (read-only)' }).getByTestId('node-database').waitFor();
    await check(page, 'versions');
  });

  it('starts a run with input and watches its steps turn done, then runs it again', async () => {
    await page.getByRole('tab', { name: 'Editor' }).click();
    await page.getByRole('button', { name: 'Start a run…' }).click();
    await page.getByLabel('Live version v1').check();
    await page.getByLabel('Trigger', { exact: true }).selectOption('trigger');
    await page.getByLabel('Input').fill('{"amount": 250}');
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.getByRole('heading', { name: /^Run / }).waitFor();
    const runId = page.url().split('/runs/')[1]!;
    for (const node of ['trigger', 'condition', 'database']) {
      await page.locator(`[data-testid="node-${node}"][data-status="done"]`).waitFor({ state: 'attached' });
    }
    await page.getByText('complete', { exact: true }).first().waitFor();
    const timeline = page.getByRole('region', { name: 'Timeline' });
    expect(await timeline.getByRole('listitem').count()).toBe(3);
    await page.locator('summary', { hasText: 'database' }).click();
    await page.locator('details[open] code', { hasText: 'rowsWritten' }).waitFor();
    await check(page, 'run');

    await page.getByRole('button', { name: 'Run again with the same input' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith(runId));
    const again = page.url().split('/runs/')[1]!;
    const run = await waitFor(
      async () => {
        const { data } = await org.api.GET('/api/v1/runs/{id}', { params: { path: { id: again } } });
        return data?.status === 'complete' ? data : undefined;
      },
      { what: 'the second run to complete' },
    );
    expect(run.input).toBe('{"amount": 250}');
    expect(run.version).toBe(1);
  });

  it('starts a run of the draft', async () => {
    await page.goto(`/workflows/${workflowId}`);
    await page.getByRole('button', { name: 'Start a run…' }).click();
    await page.getByLabel('Draft', { exact: true }).check();
    await page.getByLabel('Input').fill('{"amount": 5}');
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.getByRole('heading', { name: /^Run / }).waitFor();
    await page.getByText(/· draft ·/).waitFor();
    // 5 is not over 100: the condition's false branch, so the database step is skipped.
    await page.locator('[data-testid="node-database"][data-status="skipped"]').waitFor({ state: 'attached' });
  });

  it('lists the workflow runs and filters them by status', async () => {
    // One more that takes the condition's false branch: three complete runs, none errored.
    await org.api.POST('/api/v1/workflows/{id}/runs', {
      params: { path: { id: workflowId } },
      body: { input: '{"amount": 5}' },
    });
    await page.goto(`/workflows/${workflowId}?tab=runs`);
    const statuses = page.getByRole('group', { name: 'Status' });
    await statuses.waitFor();
    await waitFor(async () => ((await page.getByRole('row').count()) >= 4 ? true : undefined), {
      what: 'three runs listed',
    });
    // Filtered by the API: no errored run, then the complete ones.
    await statuses.getByLabel('errored').check();
    await page.getByText('No runs match these filters.').waitFor();
    await statuses.getByLabel('errored').uncheck();
    await statuses.getByLabel('complete').check();
    await waitFor(async () => ((await page.getByRole('row').count()) >= 4 ? true : undefined), {
      what: 'the complete runs listed',
    });
    await check(page, 'runs');
  });

  it('creates an API key shown once that works against the API, and revokes it', async () => {
    await nav('API keys').click();
    await page.getByLabel('Name of the new key').fill('reporting');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('secret-value').textContent())!;
    expect(key).toMatch(/^fm_/);
    const api = new ApiClient(stack.baseUrl, key);
    const projects = expectData(await api.GET('/api/v1/projects'), 200);
    expect(projects.data.map((project) => project.name)).toEqual(['Sales ops']);
    await page.getByRole('row', { name: /reporting/ }).waitFor();
    await check(page, 'keys');
    // Shown once: not on the page once it is read again.
    await page.reload();
    await page.getByRole('row', { name: /reporting/ }).waitFor();
    expect(await page.getByText(key).count()).toBe(0);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke reporting' }).click();
    await page.getByRole('row', { name: /reporting/ }).waitFor({ state: 'detached' });
    expect(await statusOf(api.GET('/api/v1/projects'))).toBe(401);
  });

  it('does not show the API keys page to a member, and the keys routes refuse one', async () => {
    const member = await createMember(stack, org.organizationId, 'member');
    const memberPage = await browser.signIn(member.email, member.password);
    const links = await memberPage
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link')
      .allTextContents();
    expect(links).not.toContain('API keys');
    expect(links).not.toContain('Audit log');
    expect(links).toContain('Billing');
    await memberPage.goto('/keys');
    await memberPage.getByText("Only the organization's owners and admins manage its API keys.").waitFor();
    const token = await signIn(stack, member.email, member.password);
    const refused = await new ApiClient(stack.baseUrl, token).raw.get<ErrorBody>('/app/keys');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
    // An organization key cannot reach the page's routes either: they are for signed-in members.
    expect((await org.api.raw.get('/app/keys')).status).toBe(403);
    // A member sees who is in the organization, and cannot invite.
    await memberPage.goto('/members');
    await memberPage
      .getByRole('table', { name: 'Members' })
      .getByRole('cell', { name: owner.email, exact: true })
      .waitFor();
    await memberPage.getByText('Owners and admins of Acme invite members.').waitFor();
    expect(await memberPage.getByLabel('Email to invite').count()).toBe(0);
    await memberPage.context().close();
  });

  it('invites from the members page; the link signs the invitee in and lands them in the organization', async () => {
    // The shared stack runs the default SIGNUP=closed: only people with an account can be invited.
    const [elsewhere, other] = await Promise.all([
      createOrganization(stack, { name: 'Elsewhere' }),
      createOrganization(stack, { name: 'Other' }),
    ]);
    const [invitee, withdrawn] = await Promise.all([
      createMember(stack, elsewhere.organizationId, 'owner'),
      createMember(stack, other.organizationId, 'member'),
    ]);
    await nav('Members').click();
    await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
    await page
      .getByRole('table', { name: 'Members' })
      .getByRole('cell', { name: owner.email, exact: true })
      .waitFor();
    const pending = page.getByRole('table', { name: 'Pending invitations' });

    await page.getByLabel('Email to invite').fill(`nobody-${Date.now().toString(36)}@example.com`);
    await page.getByRole('button', { name: 'Invite' }).click();
    expect(await page.getByRole('alert').textContent()).toMatch(/has no account.*operator/);

    await page.getByLabel('Email to invite').fill(withdrawn.email);
    await page.getByRole('button', { name: 'Invite' }).click();
    await pending.getByRole('cell', { name: withdrawn.email, exact: true }).waitFor();
    await page.getByRole('button', { name: `Cancel invitation for ${withdrawn.email}` }).click();
    await pending.getByRole('cell', { name: withdrawn.email, exact: true }).waitFor({ state: 'detached' });

    await page.getByLabel('Email to invite').fill(invitee.email);
    await page.getByLabel('Role', { exact: true }).selectOption('admin');
    await page.getByRole('button', { name: 'Invite' }).click();
    // No SMTP_URL on this stack: the link is shown, to be handed over.
    const link = (await page.getByTestId('secret-value').textContent())!;
    expect(link).toMatch(new RegExp(`^${stack.baseUrl}/invitations/\\w+\\?token=[\\w-]+$`));
    await pending.getByRole('cell', { name: invitee.email, exact: true }).waitFor();
    await check(page, 'members');

    const inviteePage = await browser.newPage();
    await inviteePage.goto(link);
    await inviteePage.getByRole('heading', { name: 'Join Acme' }).waitFor();
    await inviteePage.getByText(`${invitee.email} is invited to join as admin.`).waitFor();
    await check(inviteePage, 'invitation');
    await inviteePage.getByLabel('Password').fill(invitee.password);
    await inviteePage.getByRole('button', { name: 'Sign in and join' }).click();
    await inviteePage.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    expect(await inviteePage.getByLabel('Organization').inputValue()).toBe(org.organizationId);
    await inviteePage.getByText(`${invitee.email} · admin`).waitFor();
    await inviteePage.context().close();

    await page.reload();
    const members = page.getByRole('table', { name: 'Members' });
    await members.getByRole('cell', { name: invitee.email, exact: true }).waitFor();
    await page.getByText('No pending invitations.').waitFor();
    await page.getByLabel(`Role of ${invitee.email}`).selectOption('member');
    const ownerApi = new ApiClient(stack.baseUrl, await signIn(stack, owner.email, owner.password));
    await waitFor(
      async () => {
        const { members: rows } = (
          await ownerApi.raw.get<{ members: Array<{ role: string; user: { email: string } }> }>(
            '/api/auth/organization/list-members',
          )
        ).body;
        return rows.find((row) => row.user.email === invitee.email)?.role === 'member' ? true : undefined;
      },
      { what: 'the new role' },
    );
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: `Remove ${invitee.email}` }).click();
    await members.getByRole('cell', { name: invitee.email, exact: true }).waitFor({ state: 'detached' });
  });

  it('creates and edits a skill', async () => {
    await nav('Skills').click();
    await page.getByText('No skills yet.').waitFor();
    await page.getByRole('button', { name: 'New skill' }).click();
    await page.getByLabel('Name', { exact: true }).fill('refunds');
    await page.getByLabel('Description', { exact: true }).fill('How refunds work');
    await page.getByLabel('Instructions').fill('Refund within 30 days.');
    await page.getByRole('button', { name: 'Save skill' }).click();
    await page.getByRole('button', { name: 'Edit refunds' }).click();
    await page.getByLabel('Description', { exact: true }).fill('How refunds work here');
    await page.getByRole('button', { name: 'Save skill' }).click();
    await page.getByRole('cell', { name: 'How refunds work here' }).waitFor();
    await check(page, 'skills');
    // A name the contract refuses is explained in words.
    await page.getByRole('button', { name: 'New skill' }).click();
    await page.getByLabel('Name', { exact: true }).fill('refunds');
    await page.getByLabel('Description', { exact: true }).fill('Again');
    await page.getByLabel('Instructions').fill('Again.');
    await page.getByRole('button', { name: 'Save skill' }).click();
    const refusal = await page.getByRole('alert').textContent();
    expect(refusal).toMatch(/^Could not save the skill\. [A-Z]/);
    expect(refusal).not.toContain('skill_name_taken');
  });

  it("connects apps, shows a webhook's URL and secrets once, sets where headers go, and deletes", async () => {
    await nav('Connections').click();
    await page.getByText('No apps connected yet.').waitFor();
    await page.getByLabel('App', { exact: true }).selectOption('webhook');
    await page.getByLabel('Name', { exact: true }).fill('Shop');
    await page.getByRole('button', { name: 'Connect' }).click();
    const url = await page.getByTestId('webhook-url').textContent();
    expect(url).toMatch(new RegExp(`^${stack.baseUrl}/hooks/[0-9a-f-]{36}$`));
    const secrets = [
      await page.getByTestId('secret-value').textContent(),
      await page.getByTestId('sending-secret-value').textContent(),
    ];
    expect(secrets).toEqual([expect.stringMatching(/^whsec_/), expect.stringMatching(/^whsec_/)]);
    expect(secrets[0]).not.toBe(secrets[1]);
    await page.getByRole('row', { name: /Shop/ }).getByText('healthy').waitFor();
    await page.getByLabel('App', { exact: true }).selectOption('slack');
    await page.getByLabel('Name', { exact: true }).fill('Team');
    await page.getByLabel('Slack incoming-webhook URL').fill('https://hooks.slack.example/T000/B000/XXX');
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.getByRole('row', { name: /Team/ }).waitFor();
    await page.getByLabel('App', { exact: true }).selectOption('http');
    await page.getByLabel('Name', { exact: true }).fill('Billing API');
    await page.getByLabel('Headers sent with requests').fill('{"Authorization": "Bearer t0ken"}');
    await page.getByLabel('Origins the headers may be sent to').fill('https://API.billing.example:443');
    await page.getByRole('button', { name: 'Connect' }).click();
    await page
      .getByRole('row', { name: /Billing API/ })
      .getByText('https://api.billing.example')
      .waitFor();
    await check(page, 'connections');

    await page.getByRole('button', { name: 'Set origins of Billing API' }).click();
    await page
      .getByLabel('Origins the headers of Billing API may be sent to')
      .fill('https://v2.billing.example');
    await page.getByRole('button', { name: 'Save origins' }).click();
    await page
      .getByRole('row', { name: /Billing API/ })
      .getByText('https://v2.billing.example')
      .waitFor();
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'New sending secret of Shop' }).click();
    await page.getByText(/the previous one no longer signs/).waitFor();
    expect(await page.getByTestId('rotated-secret-value').textContent()).toMatch(/^whsec_/);

    // A member connects apps but neither changes nor deletes them: no such buttons.
    const member = await createMember(stack, org.organizationId, 'member');
    const memberPage = await browser.signIn(member.email, member.password);
    await memberPage.goto('/connections');
    await memberPage.getByRole('row', { name: /Billing API/ }).waitFor();
    expect(
      await memberPage
        .getByRole('button', { name: /^(Delete|Set origins of|New sending secret of) / })
        .count(),
    ).toBe(0);
    await memberPage.context().close();

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete Team' }).click();
    await page.getByRole('row', { name: /Team/ }).waitFor({ state: 'detached' });
  });

  it('shows the plan, its limits and the usage', async () => {
    await nav('Billing').click();
    await page.getByRole('heading', { name: /Enterprise plan/ }).waitFor();
    const projects = page.getByRole('row', { name: /Projects/ });
    expect(await projects.getByRole('cell').allTextContents()).toEqual(['1', '10,000', expect.any(String)]);
    // This month's model usage (docs/usage.md): no agent has run here, and no price table is set.
    await page.getByRole('heading', { name: /^Model usage in \d{4}-\d{2}$/ }).waitFor();
    expect(
      await page
        .getByRole('row', { name: /^Model calls/ })
        .getByRole('cell')
        .allTextContents(),
    ).toEqual(['0']);
    expect(
      await page
        .getByRole('row', { name: /^Monthly token budget/ })
        .getByRole('cell')
        .allTextContents(),
    ).toEqual(['none']);
    await check(page, 'billing');
  });

  it('shows the audit log of the changes made here, and filters it by action', async () => {
    await nav('Audit log').click();
    await page.getByRole('cell', { name: 'workflow.published', exact: true }).first().waitFor();
    await check(page, 'audit');
    await page.getByLabel('Action').fill('key.');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.getByRole('cell', { name: 'key.deleted', exact: true }).waitFor();
    expect(await page.getByRole('cell', { name: 'workflow.published', exact: true }).count()).toBe(0);
  });

  it('shows the dashboard with the activity, recent runs and counts', async () => {
    await nav('Dashboard').click();
    await page.getByRole('cell', { name: 'Big orders' }).first().waitFor();
    const counts = page.getByRole('region', { name: 'At a glance' });
    expect(await counts.getByText('Published', { exact: true }).locator('xpath=..').textContent()).toBe(
      'Published1',
    );
    await check(page, 'dashboard');
  });

  it('lists projects and their workflows', async () => {
    await nav('Workflows').click();
    const project = page.getByRole('region', { name: 'Sales ops' });
    await project
      .getByRole('row', { name: /Big orders/ })
      .getByText('v1')
      .waitFor();
    await check(page, 'workflows');
  });

  it('says in words what went wrong when a page cannot load', async () => {
    await page.goto('/runs/no-such-run');
    const alert = page.getByRole('alert');
    await alert.getByText('Could not load this.').waitFor();
    expect(await alert.textContent()).toMatch(/run/i);
    expect(await alert.textContent()).not.toContain('run_not_found');
    await check(page, 'error');
    await page.goto('/no/such/page');
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
  });

  it('works at a phone width: the navigation behind a menu', async () => {
    const phone = await browser.signIn(owner.email, owner.password, PHONE);
    const menu = phone.getByRole('navigation', { name: 'Main' });
    expect(await menu.isVisible()).toBe(false);
    await phone.getByRole('button', { name: 'Menu' }).click();
    await check(phone, 'phone-menu');
    await menu.getByRole('link', { name: 'Workflows' }).click();
    await phone.getByRole('heading', { name: 'Workflows', level: 1 }).waitFor();
    expect(await menu.isVisible()).toBe(false);
    await phone.goto(`/workflows/${workflowId}`);
    await phone.getByTestId('node-database').waitFor();
    await check(phone, 'phone-editor');
    await phone.context().close();
  });

  it("adds a notification endpoint, shows its secret once, and lists a run's delivery to it", async () => {
    // Its own page and connection, and last, so that its workflow counts in no earlier page.
    const [receiver, { connectionId }] = await Promise.all([
      HttpTarget.start(),
      createConnection(stack, org.organizationId, 'webhook', { name: 'Pager hook' }),
    ]);
    const own = await browser.signIn(owner.email, owner.password);
    try {
      await own.goto('/notifications');
      await own.getByText('No notification endpoints yet.').waitFor();
      await own.getByLabel('Name', { exact: true }).fill('Pager');
      await own.getByLabel('Connection').selectOption(connectionId);
      await own.getByLabel('URL').fill(`${receiver.url}/pager`);
      await own.getByRole('button', { name: 'Add endpoint' }).click();
      expect(await own.getByTestId('secret-value').textContent()).toMatch(/^whsec_/);
      await own.getByRole('row', { name: /Pager/ }).waitFor();

      const [endpoint] = await org.api.listAll('/api/v1/notification-endpoints');
      const projectId = await createProject(org.api, 'Notified');
      const workflowId = await createWorkflow(org.api, projectId, {
        ...chainOf(nodes.trigger('t'), nodes.alwaysTrue('c')),
        settings: { notifications: [{ endpointId: endpoint!.id, statuses: ['complete'] }] },
      });
      const run = await runToEnd(org.api, workflowId, { input: '{}' });
      await waitFor(
        async () =>
          (await deliveriesOf(org.api, endpoint!.id))[0]?.status === 'delivered' ? true : undefined,
        { what: "the run's delivery" },
      );
      await own.getByRole('button', { name: 'Deliveries to Pager' }).click();
      const row = own.getByRole('region', { name: 'Deliveries to Pager' }).getByRole('row', {
        name: new RegExp(run.id.slice(0, 8)),
      });
      await row.getByText('delivered').waitFor();
      expect(receiver.requestsTo('/pager')).toHaveLength(1);
      await row.scrollIntoViewIfNeeded();
      await check(own, 'notifications');
      await row.getByRole('link').click();
      await own.waitForURL(`**/runs/${run.id}`);
    } finally {
      await own.context().close();
      await receiver.stop();
    }
  });
});
