import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * One answer of the scripted model, in the order the calls come (tool calls get ids `call_<n>_<i>`).
 * A call with `stream: true` gets text and tool calls as chat-completion chunks over SSE; `partial`
 * streams some text and then never finishes (`hang`, until the caller gives up) or cuts the
 * connection (`break`).
 */
export type ScriptedAnswer =
  | { text: string; usage?: ScriptedUsage }
  | { toolCalls: Array<{ name: string; arguments: unknown }>; usage?: ScriptedUsage }
  | { status: number; body: unknown }
  | { garbage: string }
  | { delayMs: number; text: string }
  | { partial: string; then: 'hang' | 'break' };

/**
 * The tokens an answer reports, as OpenAI counts them: `prompt` includes `cached`, `completion`
 * includes `reasoning`. Without one an answer reports 10 prompt and 5 completion tokens.
 */
export interface ScriptedUsage {
  prompt: number;
  completion: number;
  reasoning?: number;
  cached?: number;
}

/** The `usage` object of a chat completion. */
function usageBody(usage: ScriptedUsage = { prompt: 10, completion: 5 }) {
  return {
    prompt_tokens: usage.prompt,
    completion_tokens: usage.completion,
    total_tokens: usage.prompt + usage.completion,
    ...(usage.cached === undefined ? {} : { prompt_tokens_details: { cached_tokens: usage.cached } }),
    ...(usage.reasoning === undefined
      ? {}
      : { completion_tokens_details: { reasoning_tokens: usage.reasoning } }),
  };
}

export interface ModelCall {
  model: string;
  messages: Array<{ role: string; content: unknown }>;
  body: Record<string, unknown>;
  /** How long this server took to answer the call (set once it has answered). */
  ms?: number;
  /** The caller closed the connection before the answer was complete. */
  abandoned?: boolean;
}

/** A streamed text in several deltas, each a word with the spaces after it. */
const deltasOf = (text: string): string[] => text.match(/\s+|\S+\s*/g) ?? [];

/**
 * An OpenAI-compatible chat-completions server that plays the model over real HTTP with answers a
 * test scripts: text or tool calls (whole, or streamed when the call asks for a stream), an error
 * status, something that is not a completion, a slow answer, or a stream that stops half-way, each
 * answer with the tokens it reports (`usage`). It records each call. Nothing reaches a network.
 */
export class ScriptedModel {
  readonly calls: ModelCall[] = [];
  private readonly script: ScriptedAnswer[] = [];
  private readonly server: Server;

  private constructor() {
    // A caller that goes away mid-call (an agent service killed by a test) resets its connection:
    // that ends the call, it is no failure of the test.
    this.server = createServer((request, response) => {
      this.reply(request, response).catch(() => response.destroy());
    });
  }

  static async start(): Promise<ScriptedModel> {
    const model = new ScriptedModel();
    await new Promise<void>((resolve) => model.server.listen(0, '127.0.0.1', resolve));
    return model;
  }

  /** The base URL a provider is configured with (`…/v1`). */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  /** The agent service's settings that make this server its `gateway` provider. */
  get gatewayEnv(): Record<string, string> {
    return {
      AI_GATEWAY_URL: this.url,
      AI_GATEWAY_API_KEY: 'test-key',
      AI_GATEWAY_DEFAULT_MODEL: 'scripted-default',
    };
  }

  /** Queues answers; when the script runs out, the model answers `{text: "ok"}`. */
  queue(...answers: ScriptedAnswer[]): this {
    this.script.push(...answers);
    return this;
  }

  /** Forgets the answers not given yet. */
  clear(): void {
    this.script.length = 0;
  }

  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    // A `hang` answer keeps its connection open until someone closes it.
    this.server.closeAllConnections();
    await closed;
  }

  private async reply(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
      response.writeHead(404).end();
      return;
    }
    const began = performance.now();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    const call: ModelCall = {
      model: String(body.model),
      messages: body.messages as ModelCall['messages'],
      body,
    };
    this.calls.push(call);
    response.on('finish', () => (call.ms = performance.now() - began));
    const next = this.script.shift() ?? { text: 'ok' };
    response.on('close', () => {
      if (!response.writableFinished && !('partial' in next && next.then === 'break')) call.abandoned = true;
    });
    if ('status' in next) {
      response.writeHead(next.status, { 'content-type': 'application/json' }).end(JSON.stringify(next.body));
      return;
    }
    if ('garbage' in next) {
      response.writeHead(200, { 'content-type': 'application/json' }).end(next.garbage);
      return;
    }
    if ('delayMs' in next) await new Promise((resolve) => setTimeout(resolve, next.delayMs));
    if (response.destroyed) return;
    if (body.stream === true) {
      this.stream(next, body, response);
      return;
    }
    if ('partial' in next) {
      if (next.then === 'break') response.destroy();
      return;
    }
    const message =
      'toolCalls' in next
        ? {
            role: 'assistant',
            content: null,
            tool_calls: next.toolCalls.map((call, index) => ({
              id: `call_${this.calls.length}_${index}`,
              type: 'function',
              function: { name: call.name, arguments: JSON.stringify(call.arguments) },
            })),
          }
        : { role: 'assistant', content: next.text };
    response.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: `chatcmpl-${this.calls.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, message, finish_reason: 'toolCalls' in next ? 'tool_calls' : 'stop' }],
        usage: usageBody('usage' in next ? next.usage : undefined),
      }),
    );
  }

  /** The answer as OpenAI's streamed chat-completion chunks, ending `data: [DONE]`. */
  private stream(
    next: Exclude<ScriptedAnswer, { status: number } | { garbage: string }>,
    body: Record<string, unknown>,
    response: ServerResponse,
  ): void {
    const id = `chatcmpl-${this.calls.length}`;
    const created = Math.floor(Date.now() / 1000);
    const send = (delta: Record<string, unknown>, finishReason: string | null = null, extra = {}) =>
      response.write(
        `data: ${JSON.stringify({
          id,
          object: 'chat.completion.chunk',
          created,
          model: body.model,
          choices: [{ index: 0, delta, finish_reason: finishReason }],
          ...extra,
        })}\n\n`,
      );
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    send({ role: 'assistant', content: '' });
    if ('toolCalls' in next) {
      next.toolCalls.forEach((call, index) => {
        const args = JSON.stringify(call.arguments);
        const half = Math.ceil(args.length / 2);
        send({
          tool_calls: [
            {
              index,
              id: `call_${this.calls.length}_${index}`,
              type: 'function',
              function: { name: call.name, arguments: '' },
            },
          ],
        });
        for (const piece of [args.slice(0, half), args.slice(half)]) {
          send({ tool_calls: [{ index, function: { arguments: piece } }] });
        }
      });
    } else {
      for (const delta of deltasOf('partial' in next ? next.partial : next.text)) send({ content: delta });
    }
    if ('partial' in next) {
      // Ends the socket after what was written, so the caller reads the text and then a cut.
      if (next.then === 'break') response.socket?.end();
      return;
    }
    send({}, 'toolCalls' in next ? 'tool_calls' : 'stop', {
      usage: usageBody('usage' in next ? next.usage : undefined),
    });
    response.end('data: [DONE]\n\n');
  }
}
