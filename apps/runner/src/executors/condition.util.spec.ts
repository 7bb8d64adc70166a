import type { ConditionOperator } from '#contracts';

import { evaluateCondition, evaluateConditions } from './condition.util.js';
import { StepFailure } from './node-executor.js';

const check = (left: string, operator: ConditionOperator, right = '') =>
  evaluateCondition({ left, operator, right });

describe('evaluateCondition', () => {
  it.each<[string, ConditionOperator, string, boolean]>([
    ['abc', 'equals', 'abc', true],
    ['abc', 'equals', 'ABC', false],
    ['2', 'equals', '2.0', true],
    ['2', 'not_equals', '2.0', false],
    ['a', 'not_equals', 'b', true],
    ['hello world', 'contains', 'o w', true],
    ['hello', 'not_contains', 'x', true],
    ['hello', 'starts_with', 'he', true],
    ['hello', 'ends_with', 'lo', true],
    ['hello', 'ends_with', 'he', false],
    ['10', 'greater_than', '9', true],
    ['10', 'less_than', '9', false],
    ['b', 'greater_than', 'a', true],
    ['2025-01-02T00:00:00Z', 'greater_than', '2025-01-01T00:00:00Z', true],
    ['', 'is_empty', '', true],
    ['  ', 'is_empty', '', true],
    ['[]', 'is_empty', '', true],
    ['x', 'is_empty', '', false],
    ['x', 'is_not_empty', '', true],
    ['order-123', 'matches', '^order-\\d+$', true],
    ['ORDER-1', 'matches', '/^order/i', true],
    ['nope', 'matches', '^order', false],
  ])('%p %s %p is %p', (left, operator, right, expected) => {
    expect(check(left, operator, right)).toBe(expected);
  });

  it('fails the step on a pattern that is not a regular expression', () => {
    expect(() => check('x', 'matches', '(')).toThrow(StepFailure);
  });
});

describe('evaluateConditions', () => {
  const yes = { left: 'a', operator: 'equals' as const, right: 'a' };
  const no = { left: 'a', operator: 'equals' as const, right: 'b' };

  it('needs every condition for all and one for any', () => {
    expect(evaluateConditions([yes, yes], 'all')).toBe(true);
    expect(evaluateConditions([yes, no], 'all')).toBe(false);
    expect(evaluateConditions([yes, no], 'any')).toBe(true);
    expect(evaluateConditions([no, no], 'any')).toBe(false);
  });
});
