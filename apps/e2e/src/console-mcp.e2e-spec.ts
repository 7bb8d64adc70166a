import type { ConnectionDto } from '#contracts';
import {
  ConsoleBrowser,
  createMember,
  createOrganization,
  McpTestServer,
  type MemberFixture,
  type OrganizationFixture,
  TestStack,
} from '#testing';
import type { Page } from 'playwright-core';
import { z } from 'zod';

/**
 * The console's side of MCP servers as an app (docs/mcp.md, docs/console.md), against a real MCP
 * server started here with the official SDK: a member connects it through the Connect form (a refused
 * token named on the URL field, the token never shown back), sees its tools and refreshes them, grants
 * one tool and another ask-first to an agent through the grant picker; with the server down, a refresh
 * fails with its error and the dashboard lists the connection unhealthy until it answers again.
 */
describe('console: MCP servers', () => {
  const TOKEN = 'console-mcp-bearer-token';
  let stack: TestStack;
  let mcp: McpTestServer;
  let browser: ConsoleBrowser;
  let org: OrganizationFixture;
  let member: MemberFixture;
  let page: Page;
  let connectionId: string;

  beforeAll(async () => {
    mcp = await McpTestServer.start({
      bearerToken: TOKEN,
      tools: {
        lookup: { description: 'Looks a word up in the glossary.', input: { word: z.string() } },
        'Send.Message': { description: 'Sends a message to the team.', input: { text: z.string() } },
      },
    });
    stack = await TestStack.start(
      {
        // The MCP server listens on 127.0.0.1.
        ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true',
        DASHBOARD_TIMEOUT_MS: '8000',
      },
      { allInOne: true },
    );
    browser = await ConsoleBrowser.launch(stack.baseUrl);
    org = await createOrganization(stack.description, { name: 'Glossary inc' });
    // Connecting, refreshing and granting are any member's: no owner or admin here.
    member = await createMember(stack.description, org.organizationId, 'member');
    page = await browser.signIn(member.email, member.password);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await mcp?.stop();
  });

  async function check(target: Page, screenshot: string): Promise<void> {
    expect(await browser.accessibilityViolations(target)).toEqual([]);
    expect(browser.securityPolicyViolations).toEqual([]);
    await browser.screenshot(target, screenshot);
  }

  const connections = () => member.api.raw.listAll<ConnectionDto>('/app/connections');
  const toolRows = () => page.getByRole('table', { name: 'Tools of Glossary' }).getByRole('row');

  it('connects an MCP server through the form: a refused token is named on the URL field, and the token never comes back', async () => {
    await page.getByRole('link', { name: 'Connections' }).click();
    await page.getByText('No apps connected yet.').waitFor();
    await page.getByLabel('App', { exact: true }).selectOption('mcp');
    await page.getByLabel('Name', { exact: true }).fill('Glossary');
    await page.getByLabel('MCP server URL').fill(mcp.url);
    await page.getByRole('button', { name: 'Add a header' }).click();
    await page.getByLabel('Name of header 1').fill('Authorization');
    await page.getByLabel('Value of header 1').fill('Bearer not-the-token');
    await page.getByRole('button', { name: 'Connect', exact: true }).click();

    const url = page.getByLabel('MCP server URL');
    const issue = page.getByRole('alert').filter({ hasText: /tools could not be listed.*401/ });
    await issue.waitFor();
    expect(await url.getAttribute('aria-invalid')).toBe('true');
    expect(await issue.getAttribute('id')).toBe(await url.getAttribute('aria-describedby'));
    // The field says why; no second notice repeats it.
    expect(await page.getByRole('alert').count()).toBe(1);
    expect(await connections()).toEqual([]);
    await check(page, 'connections-mcp-refused');

    await page.getByRole('button', { name: 'Remove header 1' }).click();
    await page.getByLabel('Bearer token (optional)').fill(TOKEN);
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await page.getByRole('status').getByText('Connected Glossary.').waitFor();
    const row = page.getByRole('row', { name: /Glossary/ });
    await row.getByText(`${mcp.origin} (the server)`).waitFor();
    await row.getByText('healthy').waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);

    const [made] = await connections();
    expect(made).toMatchObject({ name: 'Glossary', integrationId: 'mcp', allowedOrigins: [mcp.origin] });
    connectionId = made!.id;
    // The token went to the server, and is in no field nor anywhere on the page after.
    expect(mcp.requests.map((request) => request.authorization)).toContain(`Bearer ${TOKEN}`);
    expect(await page.getByLabel('Bearer token (optional)').inputValue()).toBe('');
    expect(await page.content()).not.toContain(TOKEN);
    await check(page, 'connections-mcp');
  });

  it("shows the server's tools with their arguments, and refreshes them", async () => {
    await page.getByRole('button', { name: 'Tools of Glossary' }).click();
    await page.getByRole('heading', { name: 'Tools of Glossary' }).waitFor();
    await toolRows().filter({ hasText: 'Send.Message' }).waitFor();
    expect(await toolRows().allTextContents()).toEqual([
      'ToolTitleDescriptionArguments',
      'lookup—Looks a word up in the glossary.word (required)',
      'Send.Message—Sends a message to the team.text (required)',
    ]);
    await check(page, 'connections-mcp-tools');

    mcp.addTool('quiet', { description: 'Added without a word.' });
    await page.getByRole('button', { name: 'Refresh tools' }).click();
    await toolRows().filter({ hasText: 'quiet' }).waitFor();
    expect(await toolRows().count()).toBe(4);
  });

  it('grants one tool, and another ask-first, through the agent grant picker', async () => {
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('button', { name: 'New agent' }).click();
    await page.getByLabel('Name', { exact: true }).fill('glossary-helper');
    // The picker offers the list as last refreshed.
    await page.getByLabel('mcp__quiet on Glossary', { exact: true }).waitFor();
    await page.getByLabel('mcp__lookup on Glossary', { exact: true }).check();
    await page.getByLabel('mcp__Send.Message on Glossary', { exact: true }).check();
    await page.getByLabel('Ask first: mcp__Send.Message on Glossary').check();
    expect(await page.getByLabel('Ask first: mcp__quiet on Glossary').isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('heading', { name: 'Agent glossary-helper' }).waitFor();
    const agentId = page.url().split('/agents/')[1]!;

    const agent = await org.api.GET('/api/v1/agents/{id}', { params: { path: { id: agentId } } });
    expect(agent.data?.apps).toEqual([
      {
        connectionId,
        integrationId: 'mcp',
        actions: ['mcp__lookup', 'mcp__Send.Message'],
        approvals: ['mcp__Send.Message'],
      },
    ]);
    // Read back into the picker as saved.
    await page.reload();
    const askFirst = page.getByLabel('Ask first: mcp__Send.Message on Glossary');
    await askFirst.waitFor();
    expect(await askFirst.isChecked()).toBe(true);
    expect(await page.getByLabel('Ask first: mcp__lookup on Glossary').isChecked()).toBe(false);
    expect(await page.getByLabel('mcp__quiet on Glossary', { exact: true }).isChecked()).toBe(false);
    await check(page, 'agent-mcp');
  });

  it('shows a failed refresh while the server is down, and the connection on the dashboard until it answers again', async () => {
    await page.goto('/');
    await page.getByRole('heading', { name: 'Needs attention' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Unhealthy connections' }).count()).toBe(0);

    await mcp.stop();
    await page.goto('/connections');
    await page.getByRole('button', { name: 'Tools of Glossary' }).click();
    await page.getByRole('button', { name: 'Refresh tools' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /^Could not refresh the tools\. .*could not be reached/ })
      .waitFor();
    // The list kept stays shown; the failed refresh marked the connection unhealthy.
    expect(await toolRows().count()).toBe(4);
    await page
      .getByRole('row', { name: /Glossary/ })
      .getByText('unhealthy')
      .waitFor();

    await page.getByRole('link', { name: 'Dashboard' }).click();
    const panel = page.getByRole('region', { name: 'Unhealthy connections' });
    await panel.getByRole('link', { name: 'Glossary' }).waitFor();
    expect(await panel.getByRole('listitem').count()).toBe(1);
    expect(await page.getByText('Nothing needs you').count()).toBe(0);
    await check(page, 'dashboard-unhealthy');
    await panel.getByRole('link', { name: 'Glossary' }).click();
    await page.getByRole('heading', { name: 'Connections', level: 1 }).waitFor();

    await mcp.restart();
    await page.getByRole('button', { name: 'Tools of Glossary' }).click();
    await page.getByRole('button', { name: 'Refresh tools' }).click();
    await page
      .getByRole('row', { name: /Glossary/ })
      .getByText('healthy', { exact: true })
      .waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    await page.goto('/');
    await page.getByText('Nothing needs you').waitFor();
    expect(await page.getByRole('heading', { name: 'Unhealthy connections' }).count()).toBe(0);
  });
});
