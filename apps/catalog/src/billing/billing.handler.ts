import { CatalogSubjects, type ConsumeRunRequest, type PlanCheckRequest, type Principal } from '#contracts';
import { RpcData, RpcPrincipal } from '#nats';
import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';

import { BillingService } from './billing.service.js';
import { PlanService } from './plan.service.js';

@Controller()
export class BillingHandler {
  constructor(
    private readonly billing: BillingService,
    private readonly plans: PlanService,
  ) {}

  @MessagePattern(CatalogSubjects.billingGet)
  get(@RpcPrincipal() principal: Principal) {
    return this.billing.get(principal.organizationId);
  }

  @MessagePattern(CatalogSubjects.planCheck)
  check(@RpcPrincipal() principal: Principal, @RpcData('data') request: PlanCheckRequest) {
    return this.plans.check(principal.organizationId, request);
  }

  @MessagePattern(CatalogSubjects.usageConsumeRun)
  consumeRun(@RpcPrincipal() principal: Principal, @RpcData('data') request: ConsumeRunRequest) {
    return this.plans.consumeRun(principal.organizationId, request.runId);
  }
}
