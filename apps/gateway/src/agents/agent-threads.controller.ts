import { AgentSubjects, PageQueryDto, type Principal } from '#contracts';
import { RpcClient } from '#nats';
import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { SessionOnly } from '../auth/session-only.decorator.js';

/**
 * An agent's threads, for signed-in members in the browser (authentication rule 5: organization keys
 * are refused, and the routes are not in the API reference).
 */
@ApiExcludeController()
@SessionOnly()
@Controller('app/agents/:id/threads')
export class AgentThreadsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  list(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Query() query: PageQueryDto) {
    return this.rpc.request(AgentSubjects.threadsList, principal, { id, query });
  }

  @Get(':threadId')
  get(
    @CurrentPrincipal() principal: Principal,
    @Param('id') agentId: string,
    @Param('threadId') threadId: string,
  ) {
    return this.rpc.request(AgentSubjects.threadsGet, principal, { agentId, threadId });
  }
}
