import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { DomainException } from '#common';
import { mcpText, McpTestServer } from '#testing';
import { z } from 'zod';

import { ConnectionRefused } from '../integrations/app-provider.js';
import { OutboundHttp } from '../outbound/outbound-http.js';
import { McpClient } from './mcp-client.js';

/**
 * The MCP client against a real MCP server built with the official SDK on a local port: what it
 * sends, and which failures blame the server (`ConnectionRefused`) and which only the request.
 */
describe('McpClient', () => {
  const TOKEN = 'mcp-secret-token';
  let mcp: McpTestServer;
  const http = new OutboundHttp(true, 64 * 1024);
  const client = new McpClient(http);
  const headers = { authorization: `Bearer ${TOKEN}` };
  const server = () => ({ url: mcp.url, headers });

  beforeEach(async () => {
    mcp = await McpTestServer.start({
      bearerToken: TOKEN,
      tools: {
        echo: {
          description: 'Echoes.',
          input: { text: z.string() },
          reply: ({ text }) => mcpText(String(text)),
        },
        fail: { description: 'Fails.', reply: () => mcpText('the disk is full', true) },
        hang: { description: 'Never answers.', reply: () => new Promise(() => undefined) },
        huge: { description: 'Answers too much.', reply: () => mcpText('x'.repeat(100 * 1024)) },
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

  afterEach(() => mcp.stop());
  afterAll(() => http.close());

  const call = (name: string, extra: { timeoutMs?: number; arguments?: Record<string, unknown> } = {}) =>
    client.callTool(server(), {
      name,
      arguments: extra.arguments ?? {},
      idempotencyKey: `run-1:ask:${name}`,
      timeoutMs: extra.timeoutMs ?? 10_000,
    });

  const failureOf = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (error) {
      return error as DomainException;
    }
    throw new Error('it did not fail');
  };

  it("lists the server's tools and calls one with its idempotency key and the connection's headers", async () => {
    expect((await client.listTools(server())).map((tool) => tool.name)).toEqual([
      'echo',
      'fail',
      'hang',
      'huge',
      'grow',
    ]);
    const called = await call('echo', { arguments: { text: 'hello' } });
    expect(called).toEqual({ result: { content: [{ type: 'text', text: 'hello' }] } });
    expect(mcp.calls).toEqual([
      {
        tool: 'echo',
        arguments: { text: 'hello' },
        idempotencyKey: 'run-1:ask:echo',
        authorization: `Bearer ${TOKEN}`,
      },
    ]);
    expect(mcp.requests.length).toBeGreaterThan(2);
    expect(mcp.requests.every((request) => request.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it("answers a tool's own failure as its result, for the caller to fail the action with", async () => {
    expect((await call('fail')).result).toEqual({
      content: [{ type: 'text', text: 'the disk is full' }],
      isError: true,
    });
  });

  it('lists the tools again when the server says during the call that they changed', async () => {
    const called = await call('grow');
    expect(called.tools?.map((tool) => tool.name)).toContain('grown');
    expect((await call('echo', { arguments: { text: 'x' } })).tools).toBeUndefined();
  });

  it('blames the server when it cannot be reached, refuses the token, or goes down mid-call', async () => {
    const refused = await failureOf(
      client.listTools({ url: mcp.url, headers: { authorization: 'Bearer nope' } }),
    );
    expect(refused).toBeInstanceOf(ConnectionRefused);
    expect(refused.message).toMatch(/401/);

    const started = Date.now();
    const hanging = failureOf(call('hang', { timeoutMs: 20_000 }));
    while (mcp.callsOf('hang').length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    await mcp.stop();
    const down = await hanging;
    expect(down).toBeInstanceOf(ConnectionRefused);
    expect(down.message).toMatch(/broke off its answer/);
    // At once, not at the call's time limit.
    expect(Date.now() - started).toBeLessThan(10_000);

    const unreachable = await failureOf(call('echo', { arguments: { text: 'x' } }));
    expect(unreachable).toBeInstanceOf(ConnectionRefused);
    expect(unreachable.message).toMatch(/could not be reached/);
  });

  it('fails only the call when it times out, answers too much, or names a tool the server refuses', async () => {
    const slow = await failureOf(call('hang', { timeoutMs: 300 }));
    expect(slow).not.toBeInstanceOf(ConnectionRefused);
    expect(slow.message).toMatch(/did not answer within 300 ms/);

    const huge = await failureOf(call('huge'));
    expect(huge).not.toBeInstanceOf(ConnectionRefused);
    expect(huge.message).toMatch(/more than 65536 bytes/);

    const unknown = await call('missing').then(
      ({ result }) => result,
      (error: DomainException) => error,
    );
    // The SDK's server answers an unknown tool as a tool error; an older one as a JSON-RPC error.
    if (unknown instanceof Error) expect(unknown).not.toBeInstanceOf(ConnectionRefused);
    else expect(unknown.isError).toBe(true);
  });

  it('sends nothing to a private address unless private networks are allowed', async () => {
    const strict = new OutboundHttp(false, 64 * 1024);
    try {
      const refused = await failureOf(new McpClient(strict).listTools(server()));
      expect(refused.code).toBe('invalid_request');
      expect(refused.message).toMatch(/private/);
      expect(mcp.requests).toEqual([]);
    } finally {
      await strict.close();
    }
  });

  it("does not follow a redirect to another origin, so the connection's headers never reach it", async () => {
    const elsewhere: string[] = [];
    const other = await listening(
      createServer((request, response) => {
        elsewhere.push(request.headers.authorization ?? '');
        response.writeHead(500).end();
      }),
    );
    const redirecting = await listening(
      createServer((_request, response) =>
        response.writeHead(307, { location: `${urlOf(other)}/mcp` }).end(),
      ),
    );
    try {
      const refused = await failureOf(client.listTools({ url: `${urlOf(redirecting)}/mcp`, headers }));
      expect(refused).toBeInstanceOf(ConnectionRefused);
      expect(elsewhere).toEqual([]);
    } finally {
      await Promise.all([closed(other), closed(redirecting)]);
    }
  });
});

async function listening(server: Server): Promise<Server> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

function closed(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
