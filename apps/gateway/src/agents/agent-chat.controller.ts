import { AgentChatDto, chatRequestOf, type Principal } from '#contracts';
import { Body, Controller, Param, Post, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { SessionOnly } from '../auth/session-only.decorator.js';
import { BodyLimit } from '../http/body-size.decorator.js';
import { LiveHolds } from '../runs/live-holds.js';
import { AgentChatClient } from './agent-chat.client.js';
import { replyWithTurn } from './turn-reply.js';

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

  @Post()
  @BodyLimit('diagram')
  chat(
    @CurrentPrincipal() principal: Principal,
    @Param('id') agentId: string,
    @Body() body: AgentChatDto,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const request = chatRequestOf(agentId, body);
    return replyWithTurn(this.holds, principal, reply, 'x-thread-id', () =>
      this.chats.open(principal, request),
    );
  }
}
