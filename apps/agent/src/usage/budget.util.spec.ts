import { monthOf, passedBudget } from './budget.util.js';

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
