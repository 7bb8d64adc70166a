import type { ConnectionDto, CreatedConnectionDto, McpServerToolsDto, StepApproval } from '#contracts';
import {
  type ApiClient,
  chainOf,
  createAgent,
  createConnection,
  createMember,
  createOrganization,
  createProject,
  createWorkflow,
  type ErrorBody,
  type MemberFixture,
  mcpText,
  McpTestServer,
  nodes,
  type OrganizationFixture,
  runReaches,
  type RunStatus,
  type RunStep,
  type Schemas,
  ScriptedModel,
  startRun,
  stepOf,
  TestStack,
  waitFor,
} from '#testing';
import { z } from 'zod';

/**
 * MCP servers as an app (docs/mcp.md), against a real MCP server started here with the official SDK
 * (McpServer over Streamable HTTP on a local port) and a scripted model: connecting keeps the
 * server's tools, an Agent step calls them through the events service, ask-first tools wait for the
 * existing approvals (the server sees exactly the approved call), the list is refreshed when the
 * server says it changed and on demand, and a server that goes down mid-call fails the call and
 * shows its connection unhealthy on the dashboard until it answers again.
 */
describe('MCP servers as an app', () => {
  const TOKEN = 'mcp-e2e-bearer-token';
  let stack: TestStack;
  let model: ScriptedModel;
  let mcp: McpTestServer;
  let org: OrganizationFixture;
  let admin: MemberFixture;
  let projectId: string;
  let connectionId: string;

  const SETTLE = { timeoutMs: 30_000, intervalMs: 50 };
  const FINISHED: RunStatus[] = ['complete', 'errored'];

  beforeAll(async () => {
    model = await ScriptedModel.start();
    mcp = await McpTestServer.start({
      bearerToken: TOKEN,
      tools: {
        lookup: {
          description: 'Looks a word up in the glossary.',
          input: { word: z.string() },
          reply: ({ word }) => mcpText(`${String(word)}: a mesh of flows`),
        },
        'Send.Message': {
          description: 'Sends a message to the team.',
          input: { text: z.string() },
          reply: ({ text }) => mcpText(`sent: ${String(text)}`),
        },
        'drop-table': { description: 'Drops a table.', input: { table: z.string() } },
        jam: { description: 'Prints the report.', reply: () => mcpText('out of paper', true) },
        grow: {
          description: 'Installs a plugin.',
          reply: async (_args, context) => {
            await context.addTool('plugin', { description: 'The installed plugin.' });
            return mcpText('installed');
          },
        },
        slow: { description: 'Takes its time.', reply: () => new Promise(() => undefined) },
      },
    });
    stack = await TestStack.start(
      {
        ...model.gatewayEnv,
        // The MCP server listens on 127.0.0.1.
        ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true',
        RUNNER_SWEEP_INTERVAL_MS: '200',
        APPROVAL_UPKEEP_INTERVAL_MS: '200',
        DASHBOARD_TIMEOUT_MS: '8000',
      },
      { services: ['catalog', 'database', 'events', 'agent', 'workflow', 'runner'] },
    );
    org = await createOrganization(stack.description);
    admin = await createMember(stack.description, org.organizationId, 'admin');
    projectId = await createProject(org.api, 'MCP');
    ({ connectionId } = await createConnection(stack.description, org.organizationId, 'mcp', {
      name: 'Glossary server',
      config: { url: mcp.url, bearerToken: TOKEN },
    }));
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await Promise.all([model?.stop(), mcp?.stop()]);
  });

  let agents = 0;

  /** Publishes a workflow whose one Agent step may call these tools of the MCP connection. */
  async function workflowWithTools(actions: string[], approvals: string[] = []) {
    agents += 1;
    const agent = await createAgent(org.api, {
      name: `mcp-agent-${agents}`,
      apps: [{ connectionId, integrationId: 'mcp', actions, approvals }],
    });
    return createWorkflow(
      org.api,
      projectId,
      chainOf(nodes.trigger('t'), nodes.agent('ask', agent.id, 'Tell the team what a mesh is.')),
      { name: `MCP ${agents}` },
    );
  }

  async function runToEnd(workflowId: string) {
    const started = await startRun(org.api, workflowId, {});
    expect(started.response.status).toBe(201);
    return runReaches(org.api, started.data!.id, FINISHED, SETTLE);
  }

  const toolsOf = async (id = connectionId) =>
    (await admin.api.raw.get<McpServerToolsDto>(`/app/connections/${id}/tools`)).body;

  const healthOf = async () =>
    (await admin.api.raw.listAll<ConnectionDto>('/app/connections')).find((c) => c.id === connectionId)!
      .health;

  const unhealthyOnDashboard = async () => {
    const dashboard = await org.api.GET('/api/v1/dashboard');
    expect(dashboard.response.status).toBe(200);
    return dashboard.data!.unhealthyConnections;
  };

  const decide = (api: ApiClient, runId: string, approvalId: string, body: Schemas['DecideApprovalDto']) =>
    api.POST('/api/v1/runs/{id}/approvals/{approvalId}', {
      params: { path: { id: runId, approvalId } },
      body,
    });

  const approvalsOf = (step: RunStep) => JSON.parse(step.output!.approvals!) as StepApproval[];

  it("connects with the server's URL and a bearer token that never comes back, and keeps its tools", async () => {
    const wrongToken = await admin.api.raw.post<ErrorBody>('/app/connections', {
      integrationId: 'mcp',
      name: 'Wrong token',
      config: { url: mcp.url, bearerToken: 'not-the-token' },
    });
    expect(wrongToken.status).toBe(400);
    expect(wrongToken.body.error.details?.issues).toEqual([
      { path: 'config.url', message: expect.stringMatching(/tools could not be listed.*401/) },
    ]);

    const made = await admin.api.raw.post<CreatedConnectionDto>('/app/connections', {
      integrationId: 'mcp',
      name: 'From the browser',
      config: { url: mcp.url, headers: { Authorization: `Bearer ${TOKEN}` } },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      integrationId: 'mcp',
      health: 'healthy',
      allowedOrigins: [mcp.origin],
    });
    const listed = await admin.api.raw.listAll<ConnectionDto>('/app/connections');
    expect(JSON.stringify([made.body, listed])).not.toContain(TOKEN);

    const tools = await toolsOf(made.body.id);
    expect(tools).toEqual({
      connectionId: made.body.id,
      tools: expect.arrayContaining([
        {
          name: 'lookup',
          description: 'Looks a word up in the glossary.',
          inputSchema: expect.objectContaining({ type: 'object', required: ['word'] }),
        },
      ]),
      ignored: [],
      refreshedAt: expect.any(String),
    });
    expect(tools.tools.map((tool) => tool.name)).toEqual([
      'lookup',
      'Send.Message',
      'drop-table',
      'jam',
      'grow',
      'slow',
    ]);
    // The browser routes take sessions only.
    expect((await org.api.raw.get<ErrorBody>(`/app/connections/${made.body.id}/tools`)).body.error.code).toBe(
      'forbidden',
    );
    expect((await admin.api.raw.delete(`/app/connections/${made.body.id}`)).status).toBe(200);

    // A grant names the server's tools as mcp__<tool>: one it did not list is refused.
    const refused = await org.api.POST('/api/v1/agents', {
      body: {
        name: 'mcp-refused',
        apps: [
          { connectionId, integrationId: 'mcp', actions: ['mcp__lookup', 'mcp__unlisted'], approvals: [] },
        ],
      },
    });
    expect(refused.response.status).toBe(400);
    expect(refused.error?.error.details?.issues).toEqual([
      { path: 'apps.0.actions.1', message: expect.stringMatching(/not a tool the MCP server .* listed/) },
    ]);
  });

  it('lets an agent call a tool, and waits on its ask-first ones: the approved one runs once, the denied one never', async () => {
    const workflowId = await workflowWithTools(
      ['mcp__lookup', 'mcp__Send.Message', 'mcp__drop-table'],
      ['mcp__Send.Message', 'mcp__drop-table'],
    );
    model.queue({
      toolCalls: [
        { name: 'mcp__lookup', arguments: { word: 'mesh' } },
        // The model sees tool names as providers accept them: `.` becomes `_`.
        { name: 'mcp__Send_Message', arguments: { text: 'A mesh is a mesh of flows.' } },
        { name: 'mcp__drop-table', arguments: { table: 'glossary' } },
      ],
    });
    const started = await startRun(org.api, workflowId, {});
    expect(started.response.status).toBe(201);
    const runId = started.data!.id;
    const waiting = await runReaches(org.api, runId, ['waiting'], SETTLE);
    const approvals = approvalsOf(stepOf(waiting, 'ask')!);
    expect(approvals).toEqual([
      expect.objectContaining({
        tool: 'mcp__Send.Message',
        input: { text: 'A mesh is a mesh of flows.' },
        status: 'pending',
      }),
      expect.objectContaining({ tool: 'mcp__drop-table', input: { table: 'glossary' }, status: 'pending' }),
    ]);
    // The model was told each tool as its server describes it.
    const offered = JSON.stringify(model.calls.at(-1)!.body.tools);
    expect(offered).toContain('Looks a word up in the glossary.');
    expect(offered).toContain('"word"');
    // The tool that needs no approval ran; the ask-first ones did not.
    expect(mcp.callsOf('lookup')).toEqual([
      {
        tool: 'lookup',
        arguments: { word: 'mesh' },
        idempotencyKey: expect.stringMatching(new RegExp(`^${runId}:ask:call_`)),
        authorization: `Bearer ${TOKEN}`,
      },
    ]);
    expect(mcp.callsOf('Send.Message')).toEqual([]);

    const approved = await decide(admin.api, runId, approvals[0]!.id, { decision: 'approve' });
    expect(approved.data).toMatchObject({
      status: 'approved',
      tool: 'mcp__Send.Message',
      result: {
        status: 'ok',
        result: { content: [{ type: 'text', text: 'sent: A mesh is a mesh of flows.' }] },
      },
    });
    expect(mcp.callsOf('Send.Message')).toEqual([
      expect.objectContaining({
        arguments: { text: 'A mesh is a mesh of flows.' },
        idempotencyKey: expect.stringMatching(new RegExp(`^${runId}:ask:call_`)),
      }),
    ]);
    await waitFor(
      async () => {
        const run = (await org.api.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } })).data!;
        const statuses = approvalsOf(stepOf(run, 'ask')!).map((approval) => approval.status);
        return run.status === 'waiting' && statuses[0] === 'approved' ? statuses : undefined;
      },
      { timeoutMs: 15_000, what: 'the step to wait again for the second decision' },
    );

    model.queue({ text: 'Told the team; the glossary stays.' });
    const calls = model.calls.length;
    const denied = await decide(admin.api, runId, approvals[1]!.id, {
      decision: 'deny',
      reason: 'Keep the glossary',
    });
    expect(denied.data).toMatchObject({ status: 'denied', reason: 'Keep the glossary', result: null });

    const done = await runReaches(org.api, runId, FINISHED, SETTLE);
    expect({ status: done.status, reply: done.reply }).toEqual({
      status: 'complete',
      reply: 'Told the team; the glossary stays.',
    });
    expect(stepOf(done, 'ask')!.output!.tools!.split('\n').sort()).toEqual([
      'mcp__Send_Message ok',
      'mcp__drop-table: denied (Keep the glossary)',
      'mcp__lookup ok',
    ]);
    expect(JSON.stringify(model.calls.slice(calls)[0]!.messages)).toContain('Keep the glossary');
    // Exactly the approved call reached the server, once; the denied one never did.
    expect(mcp.calls.map((call) => call.tool)).toEqual(['lookup', 'Send.Message']);
  });

  it("gives the agent a tool's own failure as the call's error, and the connection stays healthy", async () => {
    const workflowId = await workflowWithTools(['mcp__jam']);
    model.queue(
      { toolCalls: [{ name: 'mcp__jam', arguments: {} }] },
      { text: 'The printer is out of paper.' },
    );
    const done = await runToEnd(workflowId);
    expect(done.status).toBe('complete');
    expect(stepOf(done, 'ask')!.output!.tools).toBe('mcp__jam: The tool jam failed: out of paper');
    expect(await healthOf()).toBe('healthy');
  });

  it('keeps the new list when the server says during a call that its tools changed, and refreshes it on demand', async () => {
    expect((await toolsOf()).tools.map((tool) => tool.name)).not.toContain('plugin');
    const workflowId = await workflowWithTools(['mcp__grow']);
    model.queue({ toolCalls: [{ name: 'mcp__grow', arguments: {} }] }, { text: 'Installed.' });
    expect((await runToEnd(workflowId)).status).toBe('complete');
    expect((await toolsOf()).tools.map((tool) => tool.name)).toContain('plugin');

    mcp.addTool('quiet', { description: 'Added without a word.' });
    expect((await toolsOf()).tools.map((tool) => tool.name)).not.toContain('quiet');
    const refreshed = await admin.api.raw.post<McpServerToolsDto>(
      `/app/connections/${connectionId}/refresh-tools`,
    );
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.tools.map((tool) => tool.name)).toContain('quiet');
    expect((await toolsOf()).tools.map((tool) => tool.name)).toContain('quiet');
    const granted = await org.api.POST('/api/v1/agents', {
      body: {
        name: 'mcp-quiet',
        apps: [{ connectionId, integrationId: 'mcp', actions: ['mcp__quiet'], approvals: [] }],
      },
    });
    expect(granted.response.status).toBe(201);
  });

  it('fails a call whose server goes down mid-call, shows the connection unhealthy on the dashboard, and healthy once it answers', async () => {
    expect(await unhealthyOnDashboard()).toEqual([]);
    const workflowId = await workflowWithTools(['mcp__slow']);
    model.queue({ toolCalls: [{ name: 'mcp__slow', arguments: {} }] }, { text: 'The server went away.' });
    const started = await startRun(org.api, workflowId, {});
    expect(started.response.status).toBe(201);
    await waitFor(() => (mcp.callsOf('slow').length === 1 ? true : undefined), {
      what: 'the slow call to start',
    });
    await mcp.stop();

    const done = await runReaches(org.api, started.data!.id, FINISHED, SETTLE);
    expect({ status: done.status, reply: done.reply }).toEqual({
      status: 'complete',
      reply: 'The server went away.',
    });
    expect(stepOf(done, 'ask')!.output!.tools).toMatch(
      /^mcp__slow: The MCP server at .* broke off its answer/,
    );
    expect(await healthOf()).toBe('unhealthy');
    expect(await unhealthyOnDashboard()).toEqual([
      { id: connectionId, name: 'Glossary server', integrationId: 'mcp' },
    ]);

    const stillDown = await admin.api.raw.post<ErrorBody>(`/app/connections/${connectionId}/refresh-tools`);
    expect(stillDown.status).toBe(503);
    expect(stillDown.body.error.message).toMatch(/could not be reached/);

    await mcp.restart();
    const back = await admin.api.raw.post<McpServerToolsDto>(
      `/app/connections/${connectionId}/refresh-tools`,
    );
    expect(back.status).toBe(200);
    expect(await healthOf()).toBe('healthy');
    expect(await unhealthyOnDashboard()).toEqual([]);
  });
});
