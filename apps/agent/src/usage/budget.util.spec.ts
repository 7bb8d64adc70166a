import { budgetGauge, monthOf, passedBudget, UNLIMITED } from './budget.util.js';

describe('budgets', () => {
  it('is passed when this month’s tokens are at or over it, the agent’s named first', () => {
    const none = { budget: null, used: 5_000 };
    expect(passedBudget(none, none)).toBeNull();
    expect(passedBudget({ budget: 100, used: 99 }, none)).toBeNull();
    expect(passedBudget({ budget: 100, used: 100 }, none)).toEqual({
      scope: 'agent',
      budget: 100,
      used: 100,
    });
    expect(passedBudget(none, { budget: 1_000, used: 1_200 })).toEqual({
      scope: 'organization',
      budget: 1_000,
      used: 1_200,
    });
    expect(passedBudget({ budget: 10, used: 20 }, { budget: 15, used: 20 })).toMatchObject({
      scope: 'agent',
    });
    expect(passedBudget({ budget: 50, used: 20 }, { budget: 15, used: 20 })).toMatchObject({
      scope: 'organization',
    });
  });

  it('adds what a step spent since the month was read to both budgets', () => {
    const gauge = budgetGauge({ budget: 100, used: 60 }, { budget: 1_000, used: 950 });
    expect(gauge(0)).toBeNull();
    expect(gauge(39)).toBeNull();
    expect(gauge(40)).toEqual({ scope: 'agent', budget: 100, used: 100 });
    const organization = budgetGauge({ budget: null, used: 0 }, { budget: 1_000, used: 950 });
    expect(organization(49)).toBeNull();
    expect(organization(50)).toEqual({ scope: 'organization', budget: 1_000, used: 1_000 });
    expect(UNLIMITED(Number.MAX_SAFE_INTEGER)).toBeNull();
  });

  it('counts a UTC month, this one by default', () => {
    expect(monthOf('2026-02')).toEqual({
      month: '2026-02',
      start: new Date('2026-02-01T00:00:00Z'),
      end: new Date('2026-03-01T00:00:00Z'),
    });
    expect(monthOf('2026-12').end).toEqual(new Date('2027-01-01T00:00:00Z'));
    expect(monthOf(undefined, new Date('2026-11-30T23:59:59.999Z')).month).toBe('2026-11');
    expect(monthOf(undefined, new Date('2026-12-01T00:00:00Z')).month).toBe('2026-12');
  });
});
