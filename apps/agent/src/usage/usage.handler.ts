import { AgentSubjects, type Principal, type SetUsageBudgetDto, type UsageQueryDto } from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { UsageService } from './usage.service.js';

@Controller()
export class UsageHandler {
  constructor(private readonly usage: UsageService) {}

  @Handles(AgentSubjects.usageGet)
  get(query: UsageQueryDto, principal: Principal) {
    return this.usage.get(principal, query);
  }

  @Handles(AgentSubjects.usageBudgetSet)
  setBudget(body: SetUsageBudgetDto, principal: Principal) {
    return this.usage.setBudget(principal, body);
  }
}
