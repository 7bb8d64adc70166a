import {
  type BulkRunsDto,
  type IdRequest,
  type Principal,
  type ReplayEventsRequest,
  RunnerSubjects,
} from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { OperationsService } from './operations.service.js';

@Controller()
export class OperationsHandler {
  constructor(private readonly operations: OperationsService) {}

  @Handles(RunnerSubjects.operationsBulkRuns)
  bulkRuns(request: BulkRunsDto, principal: Principal) {
    return this.operations.bulkRuns(principal, request);
  }

  @Handles(RunnerSubjects.operationsReplayEvents)
  replayEvents(request: ReplayEventsRequest, principal: Principal) {
    return this.operations.replayEvents(principal, request);
  }

  @Handles(RunnerSubjects.operationsGet)
  get({ id }: IdRequest, principal: Principal) {
    return this.operations.get(principal, id);
  }
}
