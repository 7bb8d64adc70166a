import { setTimeout as delay } from 'node:timers/promises';

import { DomainException } from '#common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  ErrorCode,
  McpError,
  type Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

import { ConnectionRefused } from '../integrations/app-provider.js';
import { appFailure, type OutboundHttp, Unreachable } from '../outbound/outbound-http.js';

/** Where an MCP server is and what to send it: its credential headers go to its own origin only. */
export interface McpServerAddress {
  url: string;
  headers: Record<string, string>;
}

export interface McpToolCall {
  name: string;
  arguments: Record<string, unknown>;
  idempotencyKey: string;
  timeoutMs: number;
  /** Aborted when the call's run is cancelled: the call fails with the signal's reason. */
  signal?: AbortSignal;
}

export interface McpToolCalled {
  result: CallToolResult;
  /** The server's tools, listed again because it said during the call that they changed. */
  tools?: Tool[];
}

/** Connecting and refreshing list the tools within this: a first handshake and a few pages. */
export const MCP_LIST_TIMEOUT_MS = 8_000;

/** Where a server that lists more pages than this is stopped: a cursor that never ends. */
const LIST_PAGES_MAX = 20;

/** How long the end of a session waits for the server to forget it (DELETE); it forgets it anyway. */
const TERMINATE_WAIT_MS = 1_000;

/** The `_meta` key of `tools/call` that carries the call's idempotency key (docs/mcp.md). */
export const IDEMPOTENCY_META_KEY = 'flowmesh/idempotency-key';

const CLIENT_INFO = { name: 'flowmesh', version: '1.0.0' };

type Phase = 'handshake' | 'work';

/** The options of every request of a session: its deadline, cancel and breakage in one signal. */
interface SessionOptions {
  signal: AbortSignal;
  timeout: number;
}

/**
 * MCP over Streamable HTTP with the official SDK. Each listing or call is a session of its own
 * (initialize, the work, then DELETE): nothing is held between calls, so any replica serves any
 * call and a server restarted between two calls is no concern. Every request goes through
 * `OutboundHttp.fetch`, so the address checks and the answer size limit of actions apply; the
 * connection's headers are added only to requests to the server's own origin (the SDK follows
 * same-origin redirects only, and any other origin gets none).
 *
 * A failure says whether the server is to blame for being unusable (`ConnectionRefused`: it could
 * not be reached, answered an HTTP error, broke off its answer, or failed the handshake; the
 * connection turns unhealthy) or only this request failed (`appFailure`: the call timed out, the
 * server refused the call itself, the answer was too large).
 */
export class McpClient {
  constructor(private readonly http: OutboundHttp) {}

  /** Every tool the server lists, all pages of it. */
  listTools(server: McpServerAddress, timeoutMs = MCP_LIST_TIMEOUT_MS): Promise<Tool[]> {
    return this.session(server, { timeoutMs }, (client, options) => allTools(client, options));
  }

  async callTool(server: McpServerAddress, call: McpToolCall): Promise<McpToolCalled> {
    let changed = false;
    return this.session(
      server,
      { timeoutMs: call.timeoutMs, signal: call.signal, onToolsChanged: () => (changed = true) },
      async (client, options) => {
        // The schema given makes it a current result, never the 2024 protocol's `toolResult`.
        const result = (await client.callTool(
          {
            name: call.name,
            arguments: call.arguments,
            _meta: { [IDEMPOTENCY_META_KEY]: call.idempotencyKey },
          },
          CallToolResultSchema,
          options,
        )) as CallToolResult;
        if (!changed) return { result };
        // The call is done whatever the listing does: a failed listing waits for the next change
        // or a refresh rather than failing a call that was carried out.
        const tools = await allTools(client, options).catch(() => undefined);
        return tools ? { result, tools } : { result };
      },
    );
  }

  private async session<T>(
    server: McpServerAddress,
    {
      timeoutMs,
      signal,
      onToolsChanged,
    }: { timeoutMs: number; signal?: AbortSignal; onToolsChanged?: () => void },
    work: (client: Client, options: SessionOptions) => Promise<T>,
  ): Promise<T> {
    const deadline = AbortSignal.timeout(timeoutMs);
    // The SDK hears of a stream cut mid-answer only through `onerror` and then waits out its own
    // timeout; this ends the request at once instead.
    const broken = new AbortController();
    const options: SessionOptions = {
      signal: AbortSignal.any([deadline, broken.signal, ...(signal ? [signal] : [])]),
      timeout: timeoutMs,
    };
    const origin = new URL(server.url).origin;
    const fetch: FetchLike = async (input, init) => {
      const headers = new Headers(init?.headers);
      if (new URL(String(input)).origin === origin) {
        for (const [name, value] of Object.entries(server.headers)) headers.set(name, value);
      }
      const answer = await this.http.fetch(input, { ...init, headers });
      // Only a request's own answer is watched: the optional stream of server notifications (GET)
      // may come and go without saying anything about the call.
      return init?.method === 'POST'
        ? watched(answer, (error) => broken.abort(brokenOff(origin, error)))
        : answer;
    };
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      fetch,
      reconnectionOptions: {
        maxRetries: 0,
        initialReconnectionDelay: 1_000,
        maxReconnectionDelay: 1_000,
        reconnectionDelayGrowFactor: 1,
      },
    });
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    if (onToolsChanged) client.setNotificationHandler(ToolListChangedNotificationSchema, onToolsChanged);
    let phase: Phase = 'handshake';
    try {
      await client.connect(transport, options);
      phase = 'work';
      return await work(client, options);
    } catch (error) {
      throw explain(error, { phase, timeoutMs, origin, deadline, broken: broken.signal, cancel: signal });
    } finally {
      if (transport.sessionId !== undefined && !broken.signal.aborted) {
        await Promise.race([transport.terminateSession().catch(() => undefined), delay(TERMINATE_WAIT_MS)]);
      }
      await client.close().catch(() => undefined);
    }
  }
}

async function allTools(client: Client, options: SessionOptions): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < LIST_PAGES_MAX; page += 1) {
    const listed = await client.listTools(cursor === undefined ? {} : { cursor }, options);
    tools.push(...listed.tools);
    cursor = listed.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}

/** The answer, with `onError` told when its body fails before its end (the server went away). */
function watched(answer: Response, onError: (error: unknown) => void): Response {
  if (!answer.body) return answer;
  const reader = answer.body.getReader();
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        // Its reader gave up on it first (the session is closing): nothing was cut.
        if (!cancelled) onError(error);
        return controller.error(error);
      }
      if (cancelled) return;
      if (chunk.done) controller.close();
      else controller.enqueue(chunk.value);
    },
    cancel: (reason) => {
      cancelled = true;
      return reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: answer.status,
    statusText: answer.statusText,
    headers: answer.headers,
  });
}

/** Why an answer's body failed: too large is this answer's fault; anything else, the server's. */
function brokenOff(origin: string, error: unknown): DomainException {
  if (error instanceof DomainException) return error;
  const why = error instanceof Error ? error.message : String(error);
  return new ConnectionRefused(`The MCP server at ${origin} broke off its answer: ${why}.`);
}

interface Circumstances {
  phase: Phase;
  timeoutMs: number;
  origin: string;
  deadline: AbortSignal;
  broken: AbortSignal;
  cancel: AbortSignal | undefined;
}

function explain(error: unknown, at: Circumstances): DomainException {
  if (at.cancel?.aborted) {
    return at.cancel.reason instanceof DomainException
      ? at.cancel.reason
      : appFailure('The call was cancelled.');
  }
  if (at.broken.aborted) return at.broken.reason as DomainException;
  if (error instanceof Unreachable) return new ConnectionRefused(`The MCP server ${error.message}.`);
  if (error instanceof DomainException) return error;
  if (at.deadline.aborted || (error instanceof McpError && error.code === Number(ErrorCode.RequestTimeout))) {
    return appFailure(`The MCP server at ${at.origin} did not answer within ${at.timeoutMs} ms (timed out).`);
  }
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof StreamableHTTPError) {
    const status = error.code !== undefined && error.code > 0 ? ` (HTTP ${error.code})` : '';
    return new ConnectionRefused(`The MCP server at ${at.origin} refused the request${status}: ${message}`);
  }
  if (error instanceof McpError && error.code === Number(ErrorCode.ConnectionClosed)) {
    return new ConnectionRefused(`The MCP server at ${at.origin} closed the connection: ${message}`);
  }
  if (at.phase === 'handshake') {
    return new ConnectionRefused(
      `The MCP server at ${at.origin} did not complete the MCP handshake: ${message}`,
    );
  }
  // The server answered the request with an error of its own (an unknown tool, arguments it refuses).
  return appFailure(`The MCP server at ${at.origin} refused the call: ${message}`);
}
