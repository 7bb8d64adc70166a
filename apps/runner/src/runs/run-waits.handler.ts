import { type IdRequest, type Principal, RunnerSubjects } from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { RunWaits } from './run-waits.service.js';

@Controller()
export class RunWaitsHandler {
  constructor(private readonly waits: RunWaits) {}

  @Handles(RunnerSubjects.runsNextWake)
  nextWake({ id }: IdRequest, principal: Principal) {
    return this.waits.nextWake(principal, id);
  }
}
