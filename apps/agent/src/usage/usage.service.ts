import { DomainException } from '#common';
import {
  budgetTokensOf,
  type Principal,
  type SetUsageBudgetDto,
  sumUsage,
  type TokenCountsDto,
  type TokenUsage,
  type UsageBudgetDto,
  type UsageDto,
  type UsageQueryDto,
} from '#contracts';
import { Injectable } from '@nestjs/common';

import { AgentConfig } from '../agent.config.js';
import type { AgentRecord } from '../agents/agent.mapper.js';
import { ApprovalRepository } from '../approvals/approval.repository.js';
import {
  type BudgetGauge,
  budgetGauge,
  monthOf,
  type PassedBudget,
  passedBudget,
  UNLIMITED,
} from './budget.util.js';
import { costOf, priceKey, sumCosts } from './model-prices.util.js';
import type { NewModelCall } from './usage.mapper.js';
import { UsageRepository } from './usage.repository.js';

const countsOf = (usage: TokenUsage, calls: number, estimatedCost: number | null): TokenCountsDto => ({
  calls,
  ...usage,
  totalTokens: budgetTokensOf(usage),
  estimatedCost,
});

/**
 * Model usage: the calls Agent steps and chat turns record, an organization's month of them by agent
 * and model priced with the operator's table, and the budgets a step checks before its model calls.
 */
@Injectable()
export class UsageService {
  constructor(
    private readonly usage: UsageRepository,
    private readonly approvals: ApprovalRepository,
    private readonly config: AgentConfig,
  ) {}

  record(calls: readonly NewModelCall[]): Promise<void> {
    return this.usage.record(calls);
  }

  async get(principal: Principal, query: UsageQueryDto): Promise<UsageDto> {
    const { month, start, end } = monthOf(query.month);
    const [rows, monthlyTokenBudget] = await Promise.all([
      this.usage.byAgentAndModel(principal.organizationId, start, end),
      this.usage.budget(principal.organizationId),
    ]);
    const prices = this.config.modelPrices;
    const priced = rows.map((row) => {
      const { agentId, agentName, provider, model, calls, ...tokens } = row;
      const cost = costOf(tokens, prices.get(priceKey(provider, model)));
      return { agentId, agentName, provider, model, ...countsOf(tokens, calls, cost) };
    });
    return {
      month,
      rows: priced,
      totals: countsOf(
        sumUsage(rows),
        rows.reduce((sum, row) => sum + row.calls, 0),
        sumCosts(priced.map((row) => row.estimatedCost)),
      ),
      monthlyTokenBudget,
    };
  }

  async setBudget(principal: Principal, body: SetUsageBudgetDto): Promise<UsageBudgetDto> {
    if (principal.role !== 'owner') {
      throw new DomainException('forbidden', "Only the organization's owners set its monthly token budget.");
    }
    await this.usage.setBudget(principal, body.monthlyTokenBudget);
    return { monthlyTokenBudget: body.monthlyTokenBudget };
  }

  /**
   * Which budget a run's next model call would pass, if any, after its own calls' tokens: this month's
   * tokens of the agent, or of the organization, are at or over its budget, and no owner has let this
   * run go past one yet. Read once before a round of model calls; the round adds what it spends.
   */
  async gauge(agent: AgentRecord, runId: string, now = new Date()): Promise<BudgetGauge> {
    const organizationBudget = await this.usage.budget(agent.organizationId);
    if (agent.monthlyTokenBudget === null && organizationBudget === null) return UNLIMITED;
    const [used, approved] = await Promise.all([
      this.usage.tokensSince(agent.organizationId, agent.id, monthOf(undefined, now).start),
      this.approvals.budgetApproved(agent.organizationId, runId),
    ]);
    if (approved) return UNLIMITED;
    return budgetGauge(
      { budget: agent.monthlyTokenBudget, used: used.agent },
      { budget: organizationBudget, used: used.organization },
    );
  }

  /**
   * The organization's budget when this month's tokens are at or over it: the assistant takes no
   * turn then (its calls count in the organization's tokens; it has no budget of its own).
   */
  async organizationBudgetPassed(organizationId: string, now = new Date()): Promise<PassedBudget | null> {
    const budget = await this.usage.budget(organizationId);
    if (budget === null) return null;
    const used = await this.usage.tokensSince(organizationId, null, monthOf(undefined, now).start);
    return passedBudget({ budget: null, used: 0 }, { budget, used: used.organization });
  }
}
