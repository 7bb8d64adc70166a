import {
  AgentSubjects,
  type Principal,
  SetUsageBudgetDto,
  UsageBudgetDto,
  UsageDto,
  UsageQueryDto,
} from '#contracts';
import { RpcClient } from '#nats';
import { Body, Controller, Get, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { ApiErrors } from '../http/api-errors.decorator.js';

/** An extension beyond the contract: the organization's model usage, its cost and its budget (docs/usage.md). */
@ApiTags('usage')
@Controller('api/v1/usage')
export class UsageController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @ApiOperation({
    summary: "Get the organization's model usage of a month by agent and model, with its estimated cost",
  })
  @ApiOkResponse({ type: UsageDto })
  @ApiErrors('invalid_request')
  get(@CurrentPrincipal() principal: Principal, @Query() query: UsageQueryDto) {
    return this.rpc.request(AgentSubjects.usageGet, principal, query);
  }

  @Put('budget')
  @ApiOperation({ summary: "Set the organization's monthly token budget (owners only)" })
  @ApiOkResponse({ type: UsageBudgetDto })
  @ApiErrors('invalid_request')
  setBudget(@CurrentPrincipal() principal: Principal, @Body() body: SetUsageBudgetDto) {
    return this.rpc.request(AgentSubjects.usageBudgetSet, principal, body);
  }
}
