import { DomainException, inSpan, SERVICE_ATTRIBUTE, SpanKind } from '#common';
import type { ConnectionSettings } from '#contracts';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { McpClient, type McpServerAddress } from '../mcp/mcp-client.js';
import type { McpToolListRepository } from '../mcp/mcp-tool-list.repository.js';
import { keptTools } from '../mcp/mcp-tool-list.util.js';
import type { OutboundHttp } from '../outbound/outbound-http.js';
import {
  type ActionCall,
  type ActionDone,
  AnsweredFailure,
  type AppProvider,
  type Connected,
  type OpenConnection,
} from './app-provider.js';
import { excerpt, headersInput } from './input.util.js';

const CONFIG_KEYS = new Set(['url', 'bearerToken', 'headers']);
const URL_MAX_LENGTH = 2_048;
const TOKEN_MAX_LENGTH = 8_192;

/** Headers the MCP transport sets itself: a connection's header must not replace them. */
const TRANSPORT_HEADERS = new Set([
  'accept',
  'content-type',
  'content-length',
  'host',
  'last-event-id',
  'mcp-protocol-version',
  'mcp-session-id',
]);

/** A failed tool's text, as much of it as an error message holds. */
const FAILURE_TEXT_MAX = 2_000;

/** The kept credentials of an MCP connection: its server's URL and the headers it is sent. */
export function mcpServerOf(credentials: Record<string, unknown>): McpServerAddress {
  return {
    url: String(credentials.url),
    headers: headersInput(credentials.headers, 'connection.headers'),
  };
}

/**
 * `mcp`: a remote MCP server over Streamable HTTP (docs/mcp.md). Its config is the server's URL and
 * what authenticates us to it (a bearer token, or headers), all sealed like any credential and sent
 * to that URL's origin only. Connecting lists its tools and keeps them; a call that hears the list
 * changed keeps the new one. Its actions are its tools: `mcp__<tool>`.
 */
export class McpProvider implements AppProvider {
  readonly id = 'mcp' as const;
  private readonly client: McpClient;

  constructor(
    http: OutboundHttp,
    private readonly toolLists: McpToolListRepository,
  ) {
    this.client = new McpClient(http);
  }

  async connect(config: Record<string, unknown>): Promise<Connected> {
    const server = serverInput(config);
    const listedAt = new Date();
    const listed = await this.client.listTools(server).catch((error: unknown) => {
      const why = error instanceof Error ? error.message : String(error);
      throw DomainException.invalidRequest(
        [{ path: 'config.url', message: `the MCP server's tools could not be listed: ${why}` }],
        `The MCP server's tools could not be listed: ${why}`,
      );
    });
    const kept = keptTools(listed);
    return {
      credentials: { url: server.url, headers: server.headers },
      keep: ({ id, organizationId }) =>
        this.toolLists.save({ connectionId: id, organizationId, ...kept, refreshedAt: listedAt }),
    };
  }

  /** The one origin its credentials go to, the server's, shown as an `http` connection's are. */
  settings(credentials: Record<string, unknown>): ConnectionSettings {
    return { allowedOrigins: [new URL(mcpServerOf(credentials).url).origin] };
  }

  subscribe(): void {
    throw new DomainException('subscription_failed', 'The mcp app has no triggers.');
  }

  /** The server's tools now: what a refresh keeps. Failures as `McpClient`'s. */
  listTools(connection: OpenConnection) {
    return this.client.listTools(mcpServerOf(connection.credentials));
  }

  /** `mcp__<tool>`: the tool's result, or its `isError` text as the attempt's failure. */
  async execute({
    connection,
    action,
    input,
    idempotencyKey,
    timeoutMs,
    signal,
  }: ActionCall): Promise<ActionDone> {
    const server = mcpServerOf(connection.credentials);
    const called = await inSpan(
      'mcp tools/call',
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [SERVICE_ATTRIBUTE]: 'events',
          'server.address': new URL(server.url).host,
          'gen_ai.tool.name': action,
        },
      },
      () =>
        this.client.callTool(server, { name: action, arguments: input, idempotencyKey, timeoutMs, signal }),
    );
    if (called.tools) {
      await this.toolLists.save({
        connectionId: connection.id,
        organizationId: connection.organizationId,
        ...keptTools(called.tools),
        refreshedAt: new Date(),
      });
    }
    if (called.result.isError) {
      throw new AnsweredFailure(
        `The tool ${action} failed: ${excerpt(textOf(called.result) || 'no message', FAILURE_TEXT_MAX)}`,
      );
    }
    const { content, structuredContent } = called.result;
    return {
      status: 'ok',
      result: structuredContent === undefined ? { content } : { content, structuredContent },
      health: 'healthy',
    };
  }
}

function textOf(result: CallToolResult): string {
  return result.content
    .flatMap((part) => (part.type === 'text' ? [part.text] : []))
    .join('\n')
    .trim();
}

function serverInput(config: Record<string, unknown>): McpServerAddress {
  const refuse = (path: string, message: string) => DomainException.invalidRequest([{ path, message }]);
  const unknown = Object.keys(config).find((key) => !CONFIG_KEYS.has(key));
  if (unknown !== undefined) {
    throw refuse(`config.${unknown}`, 'an mcp connection takes url, and bearerToken or headers');
  }
  const { url, bearerToken } = config;
  if (typeof url !== 'string' || url.length > URL_MAX_LENGTH) {
    throw refuse('config.url', "url must be the MCP server's endpoint, such as https://mcp.example.com/mcp");
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse('config.url', `${url} is not an absolute URL`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw refuse('config.url', 'url must be http or https');
  }
  if (parsed.username || parsed.password) {
    throw refuse('config.url', 'url must not carry credentials; use bearerToken or headers');
  }
  parsed.hash = '';
  const headers = headersInput(config.headers, 'config.headers');
  const reserved = Object.keys(headers).find((name) => TRANSPORT_HEADERS.has(name));
  if (reserved !== undefined) {
    throw refuse(`config.headers`, `${reserved} is set by the MCP transport itself`);
  }
  if (bearerToken !== undefined) {
    if (
      typeof bearerToken !== 'string' ||
      bearerToken === '' ||
      bearerToken.length > TOKEN_MAX_LENGTH ||
      /\s/.test(bearerToken)
    ) {
      throw refuse('config.bearerToken', 'bearerToken must be the token alone, without spaces');
    }
    if (headers.authorization !== undefined) {
      throw refuse('config.bearerToken', 'give bearerToken or an authorization header, not both');
    }
    headers.authorization = `Bearer ${bearerToken}`;
  }
  return { url: parsed.toString(), headers };
}
