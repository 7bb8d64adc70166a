import {
  type IdRequest,
  type ListRunsRequest,
  type Principal,
  RunnerSubjects,
  type StartRunRequest,
  type TerminateRunsRequest,
  type WakeStepRequest,
} from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { RunStarter } from '../start/run-starter.service.js';
import { RunsService } from './runs.service.js';

@Controller()
export class RunsHandler {
  constructor(
    private readonly starter: RunStarter,
    private readonly runs: RunsService,
  ) {}

  @Handles(RunnerSubjects.runsStart)
  start(request: StartRunRequest, principal: Principal) {
    return this.starter.start(principal, request);
  }

  @Handles(RunnerSubjects.runsList)
  list({ workflowId, query }: ListRunsRequest, principal: Principal) {
    return this.runs.list(principal, workflowId, query);
  }

  @Handles(RunnerSubjects.runsGet)
  get({ id }: IdRequest, principal: Principal) {
    return this.runs.get(principal, id);
  }

  @Handles(RunnerSubjects.overview)
  overview(_request: object, principal: Principal) {
    return this.runs.overview(principal);
  }

  @Handles(RunnerSubjects.runsWake)
  wake({ runId, nodeId }: WakeStepRequest, principal: Principal) {
    return this.runs.wake(principal, runId, nodeId);
  }

  @Handles(RunnerSubjects.runsTerminateForWorkflows)
  terminateForWorkflows({ workflowIds }: TerminateRunsRequest, principal: Principal) {
    return this.runs.terminateForWorkflows(principal, workflowIds);
  }
}
