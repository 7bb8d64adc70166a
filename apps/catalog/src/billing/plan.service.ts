import { DomainException } from '#common';
import {
  type ConsumeRunReply,
  type ConsumeRunsReply,
  type Plan,
  type PlanId,
  type PlanLimitsReply,
  PLANS,
} from '#contracts';
import { Injectable } from '@nestjs/common';

import { PlanRepository } from './plan.repository.js';
import { type RunLimits, UsageRepository } from './usage.repository.js';

export interface OrganizationPlan extends Plan {
  complimentary: boolean;
}

function isPlanId(value: string): value is PlanId {
  return Object.hasOwn(PLANS, value);
}

/** An unknown plan id counts as the free plan, as in `planOf`. */
const RUN_LIMITS: RunLimits = {
  byPlan: Object.fromEntries(Object.values(PLANS).map((plan) => [plan.id, plan.limits.runs])),
  fallback: PLANS.free.limits.runs,
};

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

  /** Only the operator sets plans (the admin CLI), so the audit log names the service as the actor. */
  setPlan(organizationId: string, plan: PlanId, complimentary: boolean): Promise<void> {
    const operator = { organizationId, userId: null, keyId: null };
    return this.plans.upsert(organizationId, plan, complimentary, operator);
  }

  async limitsOf(organizationId: string): Promise<PlanLimitsReply> {
    return { limits: { ...(await this.planOf(organizationId)).limits } };
  }

  /**
   * The plan is read in the counting statement itself: a run start costs catalog one round trip. The
   * answer carries the plan's share of the runs queue, which the runner applies to the new run.
   */
  async consumeRun(organizationId: string, runId: string): Promise<ConsumeRunReply> {
    const { result, limit, plan } = await this.usage.consumeRun(organizationId, runId, RUN_LIMITS);
    if (result === 'limit_reached') throw DomainException.planLimit('runs', limit);
    const { queueShare } = plan !== null && isPlanId(plan) ? PLANS[plan] : PLANS.free;
    return { counted: result === 'counted', queueShare };
  }

  /** Many runs counted at once (`UsageRepository.consumeRuns`): the ones past the limit come back refused. */
  async consumeRuns(organizationId: string, runIds: readonly string[]): Promise<ConsumeRunsReply> {
    const { refused, limit, plan } = await this.usage.consumeRuns(organizationId, runIds, RUN_LIMITS);
    const { queueShare } = plan !== null && isPlanId(plan) ? PLANS[plan] : PLANS.free;
    return { refused, limit, queueShare };
  }

  async refundRun(organizationId: string, runId: string): Promise<{ refunded: boolean }> {
    return { refunded: await this.usage.refundRun(organizationId, runId) };
  }
}
