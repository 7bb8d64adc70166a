import { filterKey, filterProblem, matchesFilter } from './event-filter.js';

describe('event filters', () => {
  it('matches dot paths by deep equality, all of them', () => {
    const payload = { type: 'order', order: { paid: true, lines: [1, 2] } };
    expect(matchesFilter({ type: 'order', 'order.paid': true }, payload)).toBe(true);
    expect(matchesFilter({ 'order.lines': [1, 2] }, payload)).toBe(true);
    expect(matchesFilter({ type: 'order', 'order.paid': false }, payload)).toBe(false);
    expect(matchesFilter({ 'order.missing': null }, payload)).toBe(false);
    expect(matchesFilter({ 'type.length': 5 }, payload)).toBe(false);
    expect(matchesFilter(undefined, payload)).toBe(true);
    expect(matchesFilter({ type: 'order' }, undefined)).toBe(false);
  });

  it('gives one key to the same filter in any key order, and none to an empty one', () => {
    expect(filterKey({ b: { y: 1, x: 2 }, a: 1 })).toBe(filterKey({ a: 1, b: { x: 2, y: 1 } }));
    expect(filterKey({ a: 1 })).not.toBe(filterKey({ a: 2 }));
    expect(filterKey({})).toBe('');
    expect(filterKey(undefined)).toBe('');
  });

  it('bounds filters', () => {
    expect(filterProblem({ a: 1 })).toBeNull();
    expect(filterProblem({ a: 'x'.repeat(5_000) })).toMatch(/bytes/);
    expect(filterProblem(Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])))).toMatch(
      /paths/,
    );
    expect(filterProblem({ '': 1 })).toMatch(/path/);
  });
});
