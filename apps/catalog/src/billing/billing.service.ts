import type { CatalogBilling, CatalogOverview, NamesReply } from '#contracts';
import { Injectable } from '@nestjs/common';

import { ProjectRepository } from '../projects/project.repository.js';
import { PlanService } from './plan.service.js';
import { currentPeriod } from './usage-period.util.js';
import { UsageRepository } from './usage.repository.js';

@Injectable()
export class BillingService {
  constructor(
    private readonly plans: PlanService,
    private readonly usage: UsageRepository,
    private readonly projects: ProjectRepository,
  ) {}

  async overview(organizationId: string): Promise<CatalogOverview> {
    const [projects, activity] = await Promise.all([
      this.projects.count(organizationId),
      this.usage.activity(organizationId),
    ]);
    return { projects, activity };
  }

  /** For the dashboard: it shows runs under their project's current name. */
  async projectNames(organizationId: string, ids: string[]): Promise<NamesReply> {
    return { names: await this.projects.names(organizationId, ids) };
  }

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
