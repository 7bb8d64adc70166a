import { AssistantChatDto, assistantRequestOf, type Principal } from '#contracts';
import { Body, Controller, Post, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { SessionOnly } from '../auth/session-only.decorator.js';
import { BodyLimit } from '../http/body-size.decorator.js';
import { LiveHolds } from '../runs/live-holds.js';
import { AgentChatClient } from './agent-chat.client.js';
import { replyWithTurn } from './turn-reply.js';

/**
 * The workflow assistant (docs/agents.md, "The assistant"): a member describes a workflow or asks
 * about a run, and the answer streams as the AI SDK's `useChat` reads it. Sessions only, and not in
 * the API reference (authentication rule 5).
 */
@ApiExcludeController()
@SessionOnly()
@Controller('app/assistant')
export class AssistantController {
  constructor(
    private readonly chats: AgentChatClient,
    private readonly holds: LiveHolds,
  ) {}

  @Post()
  @BodyLimit('diagram')
  chat(
    @CurrentPrincipal() principal: Principal,
    @Body() body: AssistantChatDto,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const request = assistantRequestOf(body);
    return replyWithTurn(this.holds, principal, reply, 'x-conversation-id', () =>
      this.chats.openAssistant(principal, request),
    );
  }
}
