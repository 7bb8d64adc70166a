import { PageQueryDto, type Principal, RunnerSubjects, type StartRunRequest } from '#contracts';
import { RpcData, RpcPrincipal } from '#nats';
import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';

import { RunStarter } from '../start/run-starter.service.js';
import { RunsService } from './runs.service.js';

@Controller()
export class RunsHandler {
  constructor(
    private readonly starter: RunStarter,
    private readonly runs: RunsService,
  ) {}

  @MessagePattern(RunnerSubjects.runsStart)
  start(@RpcPrincipal() principal: Principal, @RpcData('data') request: StartRunRequest) {
    return this.starter.start(principal, request);
  }

  @MessagePattern(RunnerSubjects.runsList)
  list(
    @RpcPrincipal() principal: Principal,
    @RpcData('data.workflowId') workflowId: string,
    @RpcData('data.query') query: PageQueryDto,
  ) {
    return this.runs.list(principal, workflowId, query ?? {});
  }

  @MessagePattern(RunnerSubjects.runsGet)
  get(@RpcPrincipal() principal: Principal, @RpcData('data.id') id: string) {
    return this.runs.get(principal, id);
  }

  @MessagePattern(RunnerSubjects.runsTerminateForWorkflow)
  terminateForWorkflow(@RpcPrincipal() principal: Principal, @RpcData('data.workflowId') workflowId: string) {
    return this.runs.terminateForWorkflow(principal, workflowId);
  }
}
