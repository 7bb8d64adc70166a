import type { DomainException } from '#common';
import { mcpText, McpTestServer } from '#testing';
import { z } from 'zod';

import type { McpToolList } from '../mcp/mcp-tool-list.mapper.js';
import type { McpToolListRepository } from '../mcp/mcp-tool-list.repository.js';
import { OutboundHttp } from '../outbound/outbound-http.js';
import { AnsweredFailure, type OpenConnection } from './app-provider.js';
import { McpProvider } from './mcp.provider.js';

describe('McpProvider', () => {
  const TOKEN = 'mcp-token';
  const http = new OutboundHttp(true, 64 * 1024);
  const saved: McpToolList[] = [];
  const toolLists = { save: (list: McpToolList) => Promise.resolve(void saved.push(list)) };
  const provider = new McpProvider(http, toolLists as unknown as McpToolListRepository);
  let mcp: McpTestServer;

  beforeAll(async () => {
    mcp = await McpTestServer.start({
      bearerToken: TOKEN,
      tools: {
        lookup: {
          description: 'Looks a word up.',
          input: { word: z.string() },
          reply: ({ word }) => ({
            ...mcpText(`${String(word)}: a word`),
            structuredContent: { found: true },
          }),
        },
        broken: { description: 'Always fails.', reply: () => mcpText('out of paper', true) },
        grow: {
          description: 'Adds a tool.',
          reply: async (_args, context) => {
            await context.addTool('grown', { description: 'Grown.' });
            return mcpText('grown');
          },
        },
      },
    });
  });

  beforeEach(() => {
    saved.length = 0;
  });

  afterAll(async () => {
    await mcp.stop();
    await http.close();
  });

  const issuesOf = async (config: Record<string, unknown>) => {
    try {
      await provider.connect(config);
    } catch (error) {
      return (error as DomainException).details?.issues;
    }
    return undefined;
  };

  it('refuses a config it cannot use, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'config.url'],
      [{ url: 'not a url' }, 'config.url'],
      [{ url: 'ftp://mcp.example.com' }, 'config.url'],
      [{ url: 'https://user:pass@mcp.example.com/mcp' }, 'config.url'],
      [{ url: mcp.url, bearer: TOKEN }, 'config.bearer'],
      [{ url: mcp.url, bearerToken: 'has space' }, 'config.bearerToken'],
      [{ url: mcp.url, bearerToken: TOKEN, headers: { Authorization: 'Bearer x' } }, 'config.bearerToken'],
      [{ url: mcp.url, headers: { 'Mcp-Session-Id': 'x' } }, 'config.headers'],
      [{ url: mcp.url, headers: { 'bad header': 'x' } }, 'config.headers'],
    ];
    for (const [config, path] of cases) {
      expect(await issuesOf(config)).toEqual([{ path, message: expect.any(String) }]);
    }
    expect(mcp.requests).toEqual([]);
    // The server refuses the credentials: the connection is not made.
    expect(await issuesOf({ url: mcp.url, bearerToken: 'wrong' })).toEqual([
      { path: 'config.url', message: expect.stringMatching(/could not be listed.*HTTP 401/) },
    ]);
  });

  it('keeps the URL and the bearer as a header, and the tools the server lists once the connection exists', async () => {
    const connected = await provider.connect({ url: `${mcp.url}#ignored`, bearerToken: TOKEN });
    expect(connected.credentials).toEqual({ url: mcp.url, headers: { authorization: `Bearer ${TOKEN}` } });
    expect(provider.settings(connected.credentials)).toEqual({ allowedOrigins: [mcp.origin] });
    expect(saved).toEqual([]);
    await connected.keep?.({ id: 'connection-1', organizationId: 'org-1' });
    expect(saved).toEqual([
      expect.objectContaining({
        connectionId: 'connection-1',
        organizationId: 'org-1',
        tools: [
          expect.objectContaining({ name: 'lookup', description: 'Looks a word up.' }),
          expect.objectContaining({ name: 'broken' }),
          expect.objectContaining({ name: 'grow' }),
        ],
        ignored: [],
      }),
    ]);
  });

  describe('execute', () => {
    const connection: OpenConnection = {
      id: 'connection-1',
      organizationId: 'org-1',
      integrationId: 'mcp',
      health: 'unhealthy',
      credentials: { url: '', headers: { authorization: `Bearer ${TOKEN}` } },
    };
    const run = (action: string, input: Record<string, unknown> = {}) =>
      provider.execute({
        connection: { ...connection, credentials: { ...connection.credentials, url: mcp.url } },
        action,
        input,
        idempotencyKey: `run:node:${action}`,
        timeoutMs: 5_000,
      });

    it("answers the tool's content and structured content, and the connection works", async () => {
      expect(await run('lookup', { word: 'mesh' })).toEqual({
        status: 'ok',
        result: { content: [{ type: 'text', text: 'mesh: a word' }], structuredContent: { found: true } },
        health: 'healthy',
      });
    });

    it("fails the attempt with the tool's own error text when it answers isError", async () => {
      const failure = await run('broken').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(AnsweredFailure);
      expect((failure as Error).message).toBe('The tool broken failed: out of paper');
    });

    it('keeps the list the server said changed during the call', async () => {
      await run('grow');
      expect(saved).toEqual([
        expect.objectContaining({
          connectionId: 'connection-1',
          tools: expect.arrayContaining([expect.objectContaining({ name: 'grown' })]),
        }),
      ]);
    });
  });
});
