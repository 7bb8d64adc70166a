import { type AgentStepRequest, AgentSubjects, type Principal } from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { AgentSteps } from './agent-steps.service.js';

@Controller()
export class AgentStepsHandler {
  constructor(private readonly steps: AgentSteps) {}

  @Handles(AgentSubjects.stepsRun)
  run(request: AgentStepRequest, principal: Principal) {
    return this.steps.run(principal, request);
  }
}
