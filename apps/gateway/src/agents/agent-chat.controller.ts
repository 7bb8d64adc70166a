import { Readable } from 'node:stream';

import { AgentChatDto, chatRequestOf, type Principal } from '#contracts';
import { Body, Controller, Param, Post, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { UI_MESSAGE_STREAM_HEADERS } from 'ai';
import type { FastifyReply } from 'fastify';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { SessionOnly } from '../auth/session-only.decorator.js';
import { AgentChatClient } from './agent-chat.client.js';
import { BodyLimit } from '../http/body-size.decorator.js';
import { holdForStream, LiveHolds } from '../runs/live-holds.js';

/** The AI SDK's UI message stream over SSE: one `data:` event per chunk, `[DONE]` at the end. */
async function* serverSentEvents(chunks: AsyncIterable<string>): AsyncGenerator<string> {
  for await (const chunk of chunks) yield `data: ${chunk}\n\n`;
  yield 'data: [DONE]\n\n';
}

/**
 * A member's chat with an agent, answered as the AI SDK's `useChat` reads it (authentication rule 5:
 * sessions only, and not in the API reference). docs/agents.md, "Chat".
 */
@ApiExcludeController()
@SessionOnly()
@Controller('app/agents/:id/chat')
export class AgentChatController {
  constructor(
    private readonly chats: AgentChatClient,
    private readonly holds: LiveHolds,
  ) {}

  /** Refusals (unknown agent, invalid body) answer as errors before the stream starts. */
  @Post()
  @BodyLimit('diagram')
  async chat(
    @CurrentPrincipal() principal: Principal,
    @Param('id') agentId: string,
    @Body() body: AgentChatDto,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const request = chatRequestOf(agentId, body);
    // Closed when the answer is sent, or earlier when the client leaves (maybe while the turn opens):
    // then the model is stopped.
    const release = holdForStream(this.holds, principal, reply);
    const closed = new AbortController();
    reply.raw.on('close', () => {
      closed.abort();
      release();
    });
    const turn = await this.chats.open(principal, request);
    if (closed.signal.aborted) return turn.cancel();
    closed.signal.addEventListener('abort', () => turn.cancel());
    void reply
      .status(200)
      .headers({ ...UI_MESSAGE_STREAM_HEADERS, 'x-thread-id': turn.threadId })
      .send(Readable.from(serverSentEvents(turn.chunks), { objectMode: false }));
  }
}
