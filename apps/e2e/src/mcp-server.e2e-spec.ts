import {
  createDraft,
  createOrganization,
  createProject,
  createWorkflow,
  edge,
  nodes,
  type OrganizationFixture,
  type TestDiagram,
  TestStack,
} from '#testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';

const offered = (diagram: TestDiagram): TestDiagram => ({ ...diagram, settings: { mcp: { enabled: true } } });

/**
 * `/mcp`: the organization's opted-in published workflows as the tools of an MCP server, called with
 * the official SDK's client over Streamable HTTP with an organization key.
 */
describe('workflows as MCP tools', () => {
  let stack: TestStack;
  let org: OrganizationFixture;
  let client: Client;
  const clients: Client[] = [];

  const connect = async (apiKey: string): Promise<Client> => {
    const connected = new Client({ name: 'e2e', version: '1.0.0' });
    await connected.connect(
      new StreamableHTTPClientTransport(new URL(`${stack.baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
      }),
    );
    clients.push(connected);
    return connected;
  };

  const textOf = (result: CallToolResult) =>
    result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

  beforeAll(async () => {
    stack = await TestStack.start();
    org = await createOrganization(stack.description);
    const projectId = await createProject(org.api);
    await createWorkflow(org.api, projectId, offered({ nodes: [nodes.trigger('start')], edges: [] }), {
      name: 'Echo',
      description: 'Answers what it is given.',
    });
    await createWorkflow(
      org.api,
      projectId,
      offered({
        nodes: [
          nodes.trigger('start', {
            kind: 'api',
            inputSchema: {
              type: 'object',
              properties: { a: { type: 'number' }, b: { type: 'number' } },
              required: ['a', 'b'],
            },
          }),
          nodes.code('add', 'return trigger.a + trigger.b;'),
        ],
        edges: [edge('e1', 'start', 'add')],
      }),
      { name: 'Add numbers' },
    );
    await createWorkflow(
      org.api,
      projectId,
      offered({
        nodes: [nodes.trigger('start'), nodes.code('charge', "throw new Error('card declined');")],
        edges: [edge('e1', 'start', 'charge')],
      }),
      { name: 'Charge' },
    );
    await createWorkflow(
      org.api,
      projectId,
      offered({
        nodes: [nodes.trigger('start'), nodes.delay('nap', 6), nodes.code('done', "return 'rested';")],
        edges: [edge('e1', 'start', 'nap'), edge('e2', 'nap', 'done')],
      }),
      { name: 'Nap' },
    );
    // Not offered: published without the opt-in, and opted in but never published.
    await createWorkflow(
      org.api,
      projectId,
      { nodes: [nodes.trigger('start')], edges: [] },
      { name: 'Private' },
    );
    await createWorkflow(org.api, projectId, offered({ nodes: [nodes.trigger('start')], edges: [] }), {
      name: 'Draft only',
      publish: false,
    });
    client = await connect(org.apiKey);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(clients.map((each) => each.close()));
    await stack?.stop();
  });

  it('lists only the published workflows that opt in, each with its input schema', async () => {
    const { tools } = await client.listTools();

    expect(tools.map((tool) => tool.name)).toEqual(['add_numbers', 'charge', 'echo', 'nap']);
    const echo = tools.find((tool) => tool.name === 'echo')!;
    expect(echo).toMatchObject({
      title: 'Echo',
      description: 'Answers what it is given.',
      inputSchema: { type: 'object', properties: { input: { type: 'string' } } },
    });
    expect(tools.find((tool) => tool.name === 'add_numbers')!.inputSchema).toMatchObject({
      required: ['a', 'b'],
    });
  });

  it("runs the workflow and answers its reply; arguments that miss the schema are the tool's error", async () => {
    const echoed = (await client.callTool({
      name: 'echo',
      arguments: { input: 'hello there' },
    })) as CallToolResult;
    expect(echoed.isError).toBeFalsy();
    expect(textOf(echoed)).toBe('hello there');
    expect(echoed._meta).toMatchObject({ status: 'complete' });
    const runId = String(echoed._meta?.runId);
    const run = await org.api.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } });
    expect(run.data).toMatchObject({ trigger: 'api', input: 'hello there', status: 'complete' });

    const added = (await client.callTool({
      name: 'add_numbers',
      arguments: { a: 2, b: 3 },
    })) as CallToolResult;
    expect(textOf(added)).toBe('5');

    const wrong = (await client.callTool({ name: 'add_numbers', arguments: { a: 2 } })) as CallToolResult;
    expect(wrong.isError).toBe(true);
    expect(textOf(wrong)).toMatch(/must have required property 'b'/);
  });

  it("answers a failing workflow's error as a tool error", async () => {
    const failed = (await client.callTool({ name: 'charge', arguments: {} })) as CallToolResult;

    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toMatch(/ended errored: .*card declined/);
  });

  it('sends progress notifications while a run waits through a delay', async () => {
    const progress: Progress[] = [];

    const rested = (await client.callTool({ name: 'nap', arguments: {} }, undefined, {
      onprogress: (update) => progress.push(update),
    })) as CallToolResult;

    // A code step's text is the JSON of its result.
    expect(textOf(rested)).toBe('"rested"');
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.map((update) => update.progress)).toEqual(progress.map((_, index) => index + 1));
    // At the changes of the run (the 6 s delay makes it wait), the last before the answer.
    const messages = progress.map((update) => update.message ?? '');
    expect(messages.some((message) => message.endsWith(': waiting'))).toBe(true);
    expect(messages.at(-1)).toMatch(/: complete$/);
  });

  it("shows another organization's key none of them, nor lets it call one", async () => {
    const other = await createOrganization(stack.description, { name: 'Other org' });
    const theirs = await connect(other.apiKey);

    expect((await theirs.listTools()).tools).toEqual([]);
    await expect(theirs.callTool({ name: 'echo', arguments: { input: 'x' } })).rejects.toThrow(
      /No tool named echo/,
    );
  });

  it('refuses a client without a key, and a publish whose opt-in has nowhere to start', async () => {
    const response = await fetch(`${stack.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);

    // As docs/mcp.md's curl does it: no session to open first, the answer one SSE message.
    const listed = await fetch(`${stack.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${org.apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(listed.status).toBe(200);
    expect(await listed.text()).toMatch(/^event: message\ndata: \{.*"name":"echo"/m);

    const projectId = await createProject(org.api, 'Schedules');
    const { id } = await createDraft(org.api, projectId, {
      name: 'Nightly',
      diagram: offered({ nodes: [nodes.schedule('night', '0 3 * * *')], edges: [] }) as never,
    });
    const publish = await org.api.POST('/api/v1/workflows/{id}/publish', { params: { path: { id } } });
    expect(publish.response.status).toBe(400);
    expect(JSON.stringify(publish.error)).toMatch(/settings\.mcp.*needs an api or manual trigger/);
  });
});
