import type { CatalogBilling } from '#contracts';
import { Injectable } from '@nestjs/common';

import { ProjectRepository } from '../projects/project.repository.js';
import { PlanService } from './plan.service.js';
import { currentPeriod, UsageRepository } from './usage.repository.js';

@Injectable()
export class BillingService {
  constructor(
    private readonly plans: PlanService,
    private readonly usage: UsageRepository,
    private readonly projects: ProjectRepository,
  ) {}

  async get(organizationId: string): Promise<CatalogBilling> {
    const [plan, runs, projects] = await Promise.all([
      this.plans.planOf(organizationId),
      this.usage.runsThisPeriod(organizationId),
      this.projects.count(organizationId),
    ]);
    return {
      plan: plan.id,
      label: plan.label,
      complimentary: plan.complimentary,
      limits: { ...plan.limits },
      usage: { projects, runs },
      periodStart: new Date(`${currentPeriod()}T00:00:00.000Z`).toISOString(),
    };
  }
}
