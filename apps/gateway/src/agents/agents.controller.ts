import {
  AgentDto,
  AgentSubjects,
  CreateAgentDto,
  DeletedDto,
  PageOf,
  PageQueryDto,
  type Principal,
  UpdateAgentDto,
} from '#contracts';
import { RpcClient } from '#nats';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { ApiErrors } from '../http/api-errors.decorator.js';

@ApiTags('agents')
@Controller('api/v1/agents')
export class AgentsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @ApiOperation({ summary: 'List agents' })
  @ApiOkResponse({ type: PageOf(AgentDto) })
  @ApiErrors('invalid_request')
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQueryDto) {
    return this.rpc.request(AgentSubjects.list, principal, query);
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create an agent',
    description:
      'Omitted fields default to provider `gateway` with its default model, thinking level `medium`, and no apps, skills or databases. Grants are checked: connections, skills and databases must be the organization’s.',
  })
  @ApiCreatedResponse({ type: AgentDto })
  @ApiErrors('invalid_request', 'plan_limit_reached', 'agent_name_taken')
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateAgentDto) {
    return this.rpc.request(AgentSubjects.create, principal, body);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get an agent' })
  @ApiOkResponse({ type: AgentDto })
  @ApiErrors('invalid_request', 'agent_not_found')
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.rpc.request(AgentSubjects.get, principal, { id });
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Update an agent', description: 'Changes only the fields sent.' })
  @ApiOkResponse({ type: AgentDto })
  @ApiErrors('invalid_request', 'agent_not_found', 'agent_name_taken')
  update(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: UpdateAgentDto) {
    return this.rpc.request(AgentSubjects.update, principal, { id, body });
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete an agent', description: 'The agent and its threads are deleted.' })
  @ApiOkResponse({ type: DeletedDto })
  @ApiErrors('invalid_request', 'agent_not_found')
  delete(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.rpc.request(AgentSubjects.delete, principal, { id });
  }
}
