import {
  type CatalogOverview,
  CatalogSubjects,
  type ConsumeRunRequest,
  type ConsumeRunsRequest,
  type NamesReply,
  type NamesRequest,
  type Principal,
  type RefundRunRequest,
} from '#contracts';
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

  /** The dashboard's project count and run activity: a counter row and seven day rows. */
  @Handles(CatalogSubjects.overview)
  overview(_request: object, principal: Principal): Promise<CatalogOverview> {
    return this.billing.overview(principal.organizationId);
  }

  @Handles(CatalogSubjects.projectNames)
  projectNames({ ids }: NamesRequest, principal: Principal): Promise<NamesReply> {
    return this.billing.projectNames(principal.organizationId, ids);
  }

  @Handles(CatalogSubjects.planLimits)
  limits(_request: object, principal: Principal) {
    return this.plans.limitsOf(principal.organizationId);
  }

  @Handles(CatalogSubjects.usageConsumeRun)
  consumeRun({ runId }: ConsumeRunRequest, principal: Principal) {
    return this.plans.consumeRun(principal.organizationId, runId);
  }

  @Handles(CatalogSubjects.usageConsumeRuns)
  consumeRuns({ runIds }: ConsumeRunsRequest, principal: Principal) {
    return this.plans.consumeRuns(principal.organizationId, runIds);
  }

  @Handles(CatalogSubjects.usageRefundRun)
  refundRun({ runId }: RefundRunRequest, principal: Principal) {
    return this.plans.refundRun(principal.organizationId, runId);
  }
}
