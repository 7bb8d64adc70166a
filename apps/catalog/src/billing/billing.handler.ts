import {
  type CatalogOverview,
  CatalogSubjects,
  type ConsumeRunRequest,
  type NamesReply,
  type NamesRequest,
  type Principal,
} from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { ProjectRepository } from '../projects/project.repository.js';
import { BillingService } from './billing.service.js';
import { PlanService } from './plan.service.js';
import { UsageRepository } from './usage.repository.js';

@Controller()
export class BillingHandler {
  constructor(
    private readonly billing: BillingService,
    private readonly plans: PlanService,
    private readonly usage: UsageRepository,
    private readonly projects: ProjectRepository,
  ) {}

  @Handles(CatalogSubjects.billingGet)
  get(_request: object, principal: Principal) {
    return this.billing.get(principal.organizationId);
  }

  /** The dashboard's project count and run activity: a counter row and seven day rows. */
  @Handles(CatalogSubjects.overview)
  async overview(_request: object, { organizationId }: Principal): Promise<CatalogOverview> {
    const [projects, activity] = await Promise.all([
      this.projects.count(organizationId),
      this.usage.activity(organizationId),
    ]);
    return { projects, activity };
  }

  @Handles(CatalogSubjects.projectNames)
  async projectNames({ ids }: NamesRequest, { organizationId }: Principal): Promise<NamesReply> {
    return { names: await this.projects.names(organizationId, ids) };
  }

  @Handles(CatalogSubjects.planLimits)
  limits(_request: object, principal: Principal) {
    return this.plans.limitsOf(principal.organizationId);
  }

  @Handles(CatalogSubjects.usageConsumeRun)
  consumeRun({ runId }: ConsumeRunRequest, principal: Principal) {
    return this.plans.consumeRun(principal.organizationId, runId);
  }
}
