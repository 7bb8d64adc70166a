/** A budget a step would pass: whose, how many tokens it allows, and how many were used this month. */
export interface PassedBudget {
  scope: 'agent' | 'organization';
  budget: number;
  used: number;
}

/**
 * Whether a model call would pass a budget: this month's tokens are already at or over it. The agent's
 * own budget is named first when both are passed.
 */
export function passedBudget(
  agent: { budget: number | null; used: number },
  organization: { budget: number | null; used: number },
): PassedBudget | null {
  if (agent.budget !== null && agent.used >= agent.budget) {
    return { scope: 'agent', budget: agent.budget, used: agent.used };
  }
  if (organization.budget !== null && organization.used >= organization.budget) {
    return { scope: 'organization', budget: organization.budget, used: organization.used };
  }
  return null;
}

/**
 * What a step's next model call would pass, given the tokens its own calls used since the month's
 * usage was read (`spent`): both budgets' counts go up by them.
 */
export type BudgetGauge = (spent: number) => PassedBudget | null;

export function budgetGauge(
  agent: { budget: number | null; used: number },
  organization: { budget: number | null; used: number },
): BudgetGauge {
  return (spent) =>
    passedBudget(
      { budget: agent.budget, used: agent.used + spent },
      { budget: organization.budget, used: organization.used + spent },
    );
}

/** No budget, or one an owner let the run pass. */
export const UNLIMITED: BudgetGauge = () => null;

/** A UTC month: `YYYY-MM` and the instants it starts and ends at. */
export interface Month {
  month: string;
  start: Date;
  end: Date;
}

/** The month `YYYY-MM` (validated by the caller), or the one `now` is in. */
export function monthOf(month: string | undefined, now: Date = new Date()): Month {
  const [year, index] = month
    ? [Number(month.slice(0, 4)), Number(month.slice(5, 7)) - 1]
    : [now.getUTCFullYear(), now.getUTCMonth()];
  const start = new Date(Date.UTC(year, index, 1));
  const end = new Date(Date.UTC(year, index + 1, 1));
  return { month: start.toISOString().slice(0, 7), start, end };
}
