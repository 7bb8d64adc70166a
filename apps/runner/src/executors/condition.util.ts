import { compileMatchesPattern, type ConditionOperator, matchesTextMaxLength } from '#contracts';

import { StepFailure } from './node-executor.js';

export interface RenderedCondition {
  left: string;
  operator: ConditionOperator;
  right: string;
}

/** A number when the text is one ("42", " 3.5 ", "-1e3"), else null. */
function asNumber(text: string): number | null {
  if (text.trim() === '') return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

/** Both sides as numbers when both are numbers; otherwise null and the caller compares text. */
function numbers(left: string, right: string): [number, number] | null {
  const a = asNumber(left);
  const b = asNumber(right);
  return a === null || b === null ? null : [a, b];
}

/** RE2 within `MATCHES_WORK_MAX`, so neither pattern nor text can hold the runner's event loop for long. */
function matchesPattern(text: string, source: string): boolean {
  const compiled = compileMatchesPattern(source);
  if ('problem' in compiled) throw new StepFailure(compiled.problem);
  const longest = matchesTextMaxLength(compiled.pattern);
  if (text.length > longest) {
    throw new StepFailure(
      `the text tested is ${text.length} characters long; this pattern compiles to ${compiled.pattern.programSize()} RE2 instructions, and with it matches tests at most ${longest} characters`,
    );
  }
  return compiled.pattern.test(text);
}

/** Empty text, and the JSON text of an empty list or object (what a template renders for them). */
function isEmpty(text: string): boolean {
  const trimmed = text.trim();
  return trimmed === '' || trimmed === '[]' || trimmed === '{}';
}

/**
 * One comparison of rendered text. `equals`, `greater_than` and `less_than` compare as numbers when
 * both sides are numbers ("2" equals "2.0", "10" > "9"), else as text (so ISO times order correctly).
 */
export function evaluateCondition({ left, operator, right }: RenderedCondition): boolean {
  switch (operator) {
    case 'equals': {
      const pair = numbers(left, right);
      return pair ? pair[0] === pair[1] : left === right;
    }
    case 'not_equals':
      return !evaluateCondition({ left, operator: 'equals', right });
    case 'contains':
      return left.includes(right);
    case 'not_contains':
      return !left.includes(right);
    case 'starts_with':
      return left.startsWith(right);
    case 'ends_with':
      return left.endsWith(right);
    case 'greater_than': {
      const pair = numbers(left, right);
      return pair ? pair[0] > pair[1] : left > right;
    }
    case 'less_than': {
      const pair = numbers(left, right);
      return pair ? pair[0] < pair[1] : left < right;
    }
    case 'is_empty':
      return isEmpty(left);
    case 'is_not_empty':
      return !isEmpty(left);
    case 'matches':
      return matchesPattern(left, right);
  }
}

/**
 * `all`: every condition holds (none fails); `any`: at least one holds. A condition that cannot be
 * tested fails with a message naming it by position and operator.
 */
export function evaluateConditions(conditions: RenderedCondition[], match: 'all' | 'any'): boolean {
  const holds = (condition: RenderedCondition, index: number): boolean => {
    try {
      return evaluateCondition(condition);
    } catch (error) {
      if (!(error instanceof StepFailure)) throw error;
      throw new StepFailure(`condition ${index + 1} (${condition.operator}): ${error.message}`);
    }
  };
  return match === 'any' ? conditions.some(holds) : conditions.every(holds);
}
