import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ZodRawShape } from 'zod';

/** One `tools/call` as the server received it. */
export interface McpRecordedCall {
  tool: string;
  arguments: Record<string, unknown>;
  /** The `_meta` idempotency key the caller sent (`flowmesh/idempotency-key`). */
  idempotencyKey: string | undefined;
  authorization: string | undefined;
}

/** What a tool may do while it answers, besides answering. */
export interface McpToolContext {
  /** Adds a tool and tells the caller, on this call's own stream, that the list changed. */
  addTool(name: string, tool: McpTestTool): Promise<void>;
}

export interface McpTestTool {
  description: string;
  /** Its arguments, as a zod shape (none: it takes none). */
  input?: ZodRawShape;
  /** Its answer; a thrown error becomes the SDK's `isError` result. Default: `ok` as text. */
  reply?: (
    args: Record<string, unknown>,
    context: McpToolContext,
  ) => CallToolResult | Promise<CallToolResult>;
}

/** A tool's answer as one text. */
export const mcpText = (text: string, isError = false): CallToolResult => ({
  content: [{ type: 'text', text }],
  ...(isError ? { isError: true } : {}),
});

/**
 * A real MCP server over Streamable HTTP, built with the official SDK (`McpServer` and
 * `StreamableHTTPServerTransport`) on a local port, stateless (a server per request, as the SDK's
 * stateless example does). It serves the tools a test gives it, records every call and every HTTP
 * request, asks for a bearer token when given one, and can be stopped (it goes down: open
 * answers are cut) and started again on the same port.
 */
export class McpTestServer {
  readonly calls: McpRecordedCall[] = [];
  /** Every HTTP request, with its method and the authorization it carried. */
  readonly requests: Array<{ method: string; authorization: string | undefined }> = [];
  private readonly tools = new Map<string, McpTestTool>();
  private server: Server | undefined;
  private port = 0;

  private constructor(
    tools: Record<string, McpTestTool>,
    private readonly bearerToken: string | undefined,
  ) {
    for (const [name, tool] of Object.entries(tools)) this.tools.set(name, tool);
  }

  static async start({
    tools,
    bearerToken,
  }: {
    tools: Record<string, McpTestTool>;
    bearerToken?: string;
  }): Promise<McpTestServer> {
    const server = new McpTestServer(tools, bearerToken);
    await server.listen();
    return server;
  }

  /** The MCP endpoint. */
  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  callsOf(tool: string): McpRecordedCall[] {
    return this.calls.filter((call) => call.tool === tool);
  }

  /** Adds a tool that the next listing shows, without telling anyone. */
  addTool(name: string, tool: McpTestTool): void {
    this.tools.set(name, tool);
  }

  /** Goes down: no new connection is taken, and every open one is cut, mid-answer or not. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  /** Comes back on the same port. */
  async restart(): Promise<void> {
    await this.listen();
  }

  private async listen(): Promise<void> {
    const server = createServer((request, response) => {
      this.handle(request, response).catch(() => response.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const authorization = request.headers.authorization;
    this.requests.push({ method: request.method ?? '', authorization });
    if (this.bearerToken !== undefined && authorization !== `Bearer ${this.bearerToken}`) {
      response.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
      response.end(JSON.stringify({ error: 'unauthorized' }));
      return;
    }
    if (request.method !== 'POST' || request.url !== '/mcp') {
      // Stateless: no stream of server notifications (GET) and no session to end (DELETE).
      response.writeHead(request.url === '/mcp' ? 405 : 404, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    const mcp = this.mcpServer(authorization);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(request, response, body);
  }

  private mcpServer(authorization: string | undefined): McpServer {
    const mcp = new McpServer(
      { name: 'flowmesh-test-mcp', version: '1.0.0' },
      { capabilities: { tools: { listChanged: true } } },
    );
    for (const [name, tool] of this.tools) {
      mcp.registerTool(
        name,
        { description: tool.description, ...(tool.input ? { inputSchema: tool.input } : {}) },
        async (...params: unknown[]) => {
          // With an input shape the SDK passes (args, extra); without one, (extra) alone.
          const args = (tool.input ? params[0] : {}) as Record<string, unknown>;
          const extra = (tool.input ? params[1] : params[0]) as {
            _meta?: Record<string, unknown>;
            sendNotification: (notification: { method: 'notifications/tools/list_changed' }) => Promise<void>;
          };
          const key = extra._meta?.['flowmesh/idempotency-key'];
          this.calls.push({
            tool: name,
            arguments: args,
            idempotencyKey: typeof key === 'string' ? key : undefined,
            authorization,
          });
          const context: McpToolContext = {
            addTool: async (added, addedTool) => {
              this.tools.set(added, addedTool);
              await extra.sendNotification({ method: 'notifications/tools/list_changed' });
            },
          };
          return tool.reply ? tool.reply(args, context) : mcpText('ok');
        },
      );
    }
    return mcp;
  }
}
