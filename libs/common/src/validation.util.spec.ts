import { ValidationError } from 'class-validator';

import { toValidationIssues } from './validation.util.js';

function error(
  property: string,
  constraints: Record<string, string>,
  children: ValidationError[] = [],
): ValidationError {
  return Object.assign(new ValidationError(), { property, constraints, children });
}

describe('toValidationIssues', () => {
  it('gives one issue per constraint, with dotted paths for nested fields', () => {
    const issues = toValidationIssues([
      error('name', { isString: 'name must be a string', minLength: 'name is too short' }),
      error('statements', {}, [error('0', {}, [error('sql', { isString: 'sql must be a string' })])]),
    ]);
    expect(issues).toEqual([
      { path: 'name', message: 'name must be a string' },
      { path: 'name', message: 'name is too short' },
      { path: 'statements.0.sql', message: 'sql must be a string' },
    ]);
  });

  it('answers nothing for no errors', () => {
    expect(toValidationIssues([])).toEqual([]);
  });
});
