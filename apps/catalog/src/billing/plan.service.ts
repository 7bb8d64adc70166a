import { DomainException } from '#common';
import { type Plan, type PlanId, type PlanLimitsReply, PLANS } from '#contracts';
import { Injectable } from '@nestjs/common';

import { PlanRepository } from './plan.repository.js';
import { UsageRepository } from './usage.repository.js';

export interface OrganizationPlan extends Plan {
  complimentary: boolean;
}

function isPlanId(value: string): value is PlanId {
  return Object.hasOwn(PLANS, value);
}

@Injectable()
export class PlanService {
  constructor(
    private readonly plans: PlanRepository,
    private readonly usage: UsageRepository,
  ) {}

  /** An organization with no plan row is on the free plan. */
  async planOf(organizationId: string): Promise<OrganizationPlan> {
    const row = await this.plans.find(organizationId);
    const plan = row && isPlanId(row.plan) ? PLANS[row.plan] : PLANS.free;
    return { ...plan, complimentary: row?.complimentary ?? false };
  }

  setPlan(organizationId: string, plan: PlanId, complimentary: boolean): Promise<void> {
    return this.plans.upsert(organizationId, plan, complimentary);
  }

  async limitsOf(organizationId: string): Promise<PlanLimitsReply> {
    return { limits: { ...(await this.planOf(organizationId)).limits } };
  }

  async consumeRun(organizationId: string, runId: string): Promise<{ counted: boolean }> {
    const limit = (await this.planOf(organizationId)).limits.runs;
    const result = await this.usage.consumeRun(organizationId, runId, limit);
    if (result === 'limit_reached') throw DomainException.planLimit('runs', limit);
    return { counted: result === 'counted' };
  }
}
