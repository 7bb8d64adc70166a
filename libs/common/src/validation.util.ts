import type { ValidationError } from 'class-validator';

import type { ValidationIssue } from './domain.exception.js';

/** Flattens class-validator's tree into one `{path, message}` per problem. */
export function toValidationIssues(errors: ValidationError[], parentPath = ''): ValidationIssue[] {
  return errors.flatMap((error) => {
    const path = parentPath ? `${parentPath}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ path, message }));
    return [...own, ...toValidationIssues(error.children ?? [], path)];
  });
}
