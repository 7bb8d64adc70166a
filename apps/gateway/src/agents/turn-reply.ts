import { Readable } from 'node:stream';

import type { Principal } from '#contracts';
import { UI_MESSAGE_STREAM_HEADERS } from 'ai';
import type { FastifyReply } from 'fastify';

import { holdForStream, type LiveHolds } from '../runs/live-holds.js';
import type { ChatTurnStream } from './agent-chat.client.js';

/** The AI SDK's UI message stream over SSE: one `data:` event per chunk, `[DONE]` at the end. */
async function* serverSentEvents(chunks: AsyncIterable<string>): AsyncGenerator<string> {
  for await (const chunk of chunks) yield `data: ${chunk}\n\n`;
  yield 'data: [DONE]\n\n';
}

/**
 * Opens a streamed turn (agent chat, the assistant) and answers with its chunks as `useChat` reads
 * them. Refusals (unknown agent or workflow, invalid body) answer as errors before the stream starts.
 * The turn is cancelled when the answer is sent, or earlier when the client leaves (maybe while the
 * turn opens): then the model is stopped. `idHeader` names the thread or conversation to continue.
 */
export async function replyWithTurn(
  holds: LiveHolds,
  principal: Principal,
  reply: FastifyReply,
  idHeader: string,
  open: () => Promise<ChatTurnStream>,
): Promise<void> {
  const release = holdForStream(holds, principal, reply);
  const closed = new AbortController();
  reply.raw.on('close', () => {
    closed.abort();
    release();
  });
  const turn = await open();
  if (closed.signal.aborted) return turn.cancel();
  closed.signal.addEventListener('abort', () => turn.cancel());
  void reply
    .status(200)
    .headers({ ...UI_MESSAGE_STREAM_HEADERS, [idHeader]: turn.threadId })
    .send(Readable.from(serverSentEvents(turn.chunks), { objectMode: false }));
}
