import { type ConditionOperator, MATCHES_PATTERN_MAX_LENGTH, MATCHES_WORK_MAX } from '#contracts';
import { RE2JS } from 're2js';

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
    ['ORDER-1', 'matches', '(?i)^order', true],
    ['a\nb', 'matches', '/^b$/m', true],
    ['a\nb', 'matches', '/a.b/s', true],
    ['a\nb', 'matches', 'a.b', false],
    ['path /a/b', 'matches', '/a/b', true],
    ['€', 'matches', '^.$', true],
    ['ada@example.com', 'matches', '^(?P<user>[^@]+)@(?<host>.+)$', true],
    ['nope', 'matches', '^order', false],
  ])('%p %s %p is %p', (left, operator, right, expected) => {
    expect(check(left, operator, right)).toBe(expected);
  });

  it('matches in linear time: a pattern that backtracks exponentially in RegExp answers at once', () => {
    // A backtracking engine would not finish this in the lifetime of the test run.
    expect(check(`${'a'.repeat(50_000)}!`, 'matches', '^(a+)+$')).toBe(false);
    expect(check('a'.repeat(50_000), 'matches', '^(a+)+$')).toBe(true);
  });

  it.each([
    ['(', 'missing closing )'],
    ['(a)\\1', 'invalid escape sequence: `\\1`'],
    ['(?=a)', 'invalid or unsupported Perl syntax: `(?=`'],
    ['(?!a)', 'invalid or unsupported Perl syntax: `(?!`'],
  ])('fails the step on %p, which RE2 refuses, and says why', (pattern, reason) => {
    expect(() => check('a', 'matches', pattern)).toThrow(StepFailure);
    expect(() => check('a', 'matches', pattern)).toThrow(
      `"${pattern}" is not a regular expression RE2 accepts: error parsing regexp: ${reason}`,
    );
  });

  it('fails the step on a flag that RE2 cannot honour', () => {
    expect(() => check('a', 'matches', '/a/y')).toThrow(
      'the flag "y" of "/a/y" is not supported; use i, m or s',
    );
  });

  it(`takes patterns up to ${MATCHES_PATTERN_MAX_LENGTH} characters`, () => {
    expect(check('a', 'matches', 'a?'.repeat(MATCHES_PATTERN_MAX_LENGTH / 2))).toBe(true);
    expect(() => check('a', 'matches', `${'a?'.repeat(MATCHES_PATTERN_MAX_LENGTH / 2)}b`)).toThrow(
      `the pattern is ${MATCHES_PATTERN_MAX_LENGTH + 1} characters long; a pattern may have at most ${MATCHES_PATTERN_MAX_LENGTH}`,
    );
  });

  it(`tests a text as long as ${MATCHES_WORK_MAX} divided by the pattern's RE2 instructions`, () => {
    const pattern = '^(?:[abc]*a[abc]{60}){8}$';
    const instructions = RE2JS.compile(pattern).programSize();
    const longest = Math.floor(MATCHES_WORK_MAX / instructions);
    expect(check('b'.repeat(longest), 'matches', pattern)).toBe(false);
    expect(() => check('b'.repeat(longest + 1), 'matches', pattern)).toThrow(
      `the text tested is ${longest + 1} characters long; this pattern compiles to ${instructions} RE2 instructions, and with it matches tests at most ${longest} characters`,
    );
    // Everyday patterns are small, so they test long texts.
    expect(check(`${'x'.repeat(100_000)}order-7`, 'matches', 'order-\\d+$')).toBe(true);
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

  it('names the condition that cannot be tested', () => {
    const unsupported = { left: 'a', operator: 'matches' as const, right: '(?=a)' };
    expect(() => evaluateConditions([no, unsupported], 'any')).toThrow(
      /^condition 2 \(matches\): "\(\?=a\)" is not a regular expression RE2 accepts: /,
    );
  });
});
