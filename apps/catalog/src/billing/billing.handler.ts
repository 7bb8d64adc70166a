import { CatalogSubjects, type ConsumeRunRequest, type PlanCheckRequest, type Principal } from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { BillingService } from './billing.service.js';
import { PlanService } from './plan.service.js';

@Controller()
export class BillingHandler {
  constructor(
    private readonly billing: BillingService,
    private readonly plans: PlanService,
  ) {}

  @Handles(CatalogSubjects.billingGet)
  get(_request: object, principal: Principal) {
    return this.billing.get(principal.organizationId);
  }

  @Handles(CatalogSubjects.planCheck)
  check(request: PlanCheckRequest, principal: Principal) {
    return this.plans.check(principal.organizationId, request);
  }

  @Handles(CatalogSubjects.usageConsumeRun)
  consumeRun({ runId }: ConsumeRunRequest, principal: Principal) {
    return this.plans.consumeRun(principal.organizationId, runId);
  }
}
