import type { ApiClient } from './api-client.js';

/** One chunk of the AI SDK's UI message stream, as a test reads it. */
export type UiChunk = { type: string } & Record<string, any>;

export interface ChatAnswer {
  status: number;
  headers: Headers;
  /** The chunks in order (an answer that is not 200 has none). */
  chunks: UiChunk[];
  /** The stream ended with `data: [DONE]`. */
  done: boolean;
  /** The JSON error of an answer that is not 200. */
  error?: { code: string; message: string; details?: any };
  /** Every SSE event was one `data: <json>` line followed by a blank line. */
  wellFormed: boolean;
}

/** A user message as `useChat` sends it. */
export const userMessage = (text: string, id = `msg-${Math.random().toString(36).slice(2)}`) => ({
  id,
  role: 'user' as const,
  parts: [{ type: 'text' as const, text }],
});

/** The body `useChat`'s DefaultChatTransport sends for a new message. */
export const chatBody = (id: string, ...texts: string[]) => ({
  id,
  messages: texts.map((text) => userMessage(text)),
  trigger: 'submit-message',
});

/** Reads an SSE body of `data:` events strictly, the way the AI SDK's parser expects them. */
export function parseUiMessageStream(text: string): Pick<ChatAnswer, 'chunks' | 'done' | 'wellFormed'> {
  const events = text.split('\n\n');
  const trailing = events.pop();
  let wellFormed = trailing === '';
  let done = false;
  const chunks: UiChunk[] = [];
  for (const event of events) {
    if (!event.startsWith('data: ') || event.includes('\n') || done) {
      wellFormed = false;
      continue;
    }
    const data = event.slice('data: '.length);
    if (data === '[DONE]') done = true;
    else chunks.push(JSON.parse(data) as UiChunk);
  }
  return { chunks, done, wellFormed };
}

/** Posts a chat message and reads the whole streamed answer. */
export function sendChat(
  api: ApiClient,
  agentId: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<ChatAnswer> {
  return postUiMessageStream(api, `/app/agents/${agentId}/chat`, body, headers);
}

/** Posts a message to the workflow assistant (`/app/assistant`) and reads the whole streamed answer. */
export function sendAssistant(
  api: ApiClient,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<ChatAnswer> {
  return postUiMessageStream(api, '/app/assistant', body, headers);
}

async function postUiMessageStream(
  api: ApiClient,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<ChatAnswer> {
  const response = await fetch(`${api.baseUrl}${path}`, {
    method: 'POST',
    headers: {
      ...(api.token ? { authorization: `Bearer ${api.token}` } : {}),
      'content-type': 'application/json',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 200) {
    return {
      status: response.status,
      headers: response.headers,
      chunks: [],
      done: false,
      wellFormed: false,
      error: (JSON.parse(text) as { error: ChatAnswer['error'] }).error,
    };
  }
  return { status: response.status, headers: response.headers, ...parseUiMessageStream(text) };
}

/** The text the chunks add up to (every `text-delta`, in order). */
export const textOf = (chunks: UiChunk[]): string =>
  chunks
    .filter((chunk) => chunk.type === 'text-delta')
    .map((chunk) => String(chunk.delta))
    .join('');

/**
 * Opens a chat and reads its chunks as they come, for tests that act in the middle of an answer
 * (leave, or kill a service). `next` answers the next chunk, or `done` at the end of the stream.
 */
export async function openChat(api: ApiClient, agentId: string, body: unknown) {
  const abort = new AbortController();
  const response = await fetch(`${api.baseUrl}/app/agents/${agentId}/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: abort.signal,
  });
  if (response.status !== 200 || !response.body) throw new Error(`chat answered ${response.status}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  const next = async (): Promise<UiChunk | 'done'> => {
    for (;;) {
      const end = buffered.indexOf('\n\n');
      if (end >= 0) {
        const event = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const data = event.replace(/^data: /, '');
        return data === '[DONE]' ? 'done' : (JSON.parse(data) as UiChunk);
      }
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended without [DONE]: ${buffered}`);
      buffered += value;
    }
  };
  return {
    response,
    next,
    /** Reads chunks until one matches, answering it. */
    async until(match: (chunk: UiChunk) => boolean): Promise<UiChunk> {
      for (;;) {
        const chunk = await next();
        if (chunk === 'done') throw new Error('the stream ended before the awaited chunk');
        if (match(chunk)) return chunk;
      }
    },
    /** The rest of the stream, up to `[DONE]`. */
    async rest(): Promise<UiChunk[]> {
      const chunks: UiChunk[] = [];
      for (let chunk = await next(); chunk !== 'done'; chunk = await next()) chunks.push(chunk);
      return chunks;
    },
    leave: () => abort.abort(),
  };
}
