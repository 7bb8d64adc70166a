import { OperationDto, type Principal, RunnerSubjects } from '#contracts';
import { RpcClient } from '#nats';
import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { ApiErrors } from '../http/api-errors.decorator.js';

/** Bulk operations over runs and events (docs/runs.md, "Finding and acting on many runs"). */
@ApiTags('runs')
@Controller('api/v1/operations')
export class OperationsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get(':id')
  @ApiOperation({
    summary: 'Follow a bulk operation',
    description:
      "Extension beyond the contract. A bulk cancel, rerun or replay: how many runs (or events) it matched, how many are `done` and `failed` so far (with the first 100 failures and why), and its `status`, `running` until every one is settled, then `complete`. Another organization's operation, or an unknown id, answers 404 `operation_not_found`.",
  })
  @ApiOkResponse({ type: OperationDto })
  @ApiErrors('invalid_request', 'operation_not_found', 'service_unavailable')
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<OperationDto> {
    return this.rpc.request(RunnerSubjects.operationsGet, principal, { id });
  }
}
