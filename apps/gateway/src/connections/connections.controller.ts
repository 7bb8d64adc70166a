import { DomainException } from '#common';
import {
  CreateConnectionDto,
  EventsSubjects,
  PageQueryDto,
  type Principal,
  UpdateConnectionDto,
} from '#contracts';
import { RpcClient } from '#nats';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { SessionOnly } from '../auth/session-only.decorator.js';

/**
 * Connecting apps, for signed-in members in the browser (the contract keeps it out of the API, so it
 * is not in the reference and organization keys are refused). Credentials go in, never come out.
 * Any member connects an app; changing or deleting one takes an owner or admin (events checks).
 */
@ApiExcludeController()
@SessionOnly()
@Controller('app/connections')
export class ConnectionsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQueryDto) {
    return this.rpc.request(EventsSubjects.connectionsList, principal, query);
  }

  @Post()
  @HttpCode(201)
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateConnectionDto) {
    return this.rpc.request(EventsSubjects.connectionsCreate, principal, body);
  }

  @Patch(':id')
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: UpdateConnectionDto,
  ) {
    return this.rpc.request(EventsSubjects.connectionsUpdate, principal, { id, body });
  }

  @Post(':id/sending-secret')
  @HttpCode(201)
  rotateSendingSecret(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.rpc.request(EventsSubjects.connectionsRotateSendingSecret, principal, { id });
  }

  /** Extension (docs/mcp.md): the tools an MCP connection keeps, as its server last listed them. */
  @Get(':id/tools')
  async tools(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    const { servers } = await this.rpc.request(EventsSubjects.mcpTools, principal, { connectionIds: [id] });
    const [list] = servers;
    if (!list) throw new DomainException('not_found', `No MCP connection with id ${id}.`);
    return list;
  }

  /** Extension (docs/mcp.md): asks the MCP server for its tools now; the list it keeps is the answer. */
  @Post(':id/refresh-tools')
  @HttpCode(200)
  refreshTools(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.rpc.request(EventsSubjects.mcpToolsRefresh, principal, { id });
  }

  @Delete(':id')
  delete(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.rpc.request(EventsSubjects.connectionsDelete, principal, { id });
  }
}
