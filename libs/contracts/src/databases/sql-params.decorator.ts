import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, ValidateBy, type ValidationArguments, ValidateIf } from 'class-validator';

import { QUERY_LIMITS } from './query-limits.js';
import { isSqlValue, SQL_VALUE_SCHEMA } from './sql-value.js';

function firstInvalid(value: unknown, booleans: boolean): number {
  return Array.isArray(value)
    ? value.findIndex((item) => !(isSqlValue(item) || (booleans && typeof item === 'boolean')))
    : -1;
}

/**
 * `params`: up to 100 input cells, bound to the statement's placeholders in order; default empty.
 * `booleans` also lets through booleans, which the contract's SqlValue has not but a workflow's
 * database step may carry (its node schema allows them).
 */
export function SqlParamsField({ booleans = false }: { booleans?: boolean } = {}): PropertyDecorator {
  const kinds = booleans ? 'a string, a number, a boolean, null' : 'a string, a number, null';
  return applyDecorators(
    ApiPropertyOptional({
      type: 'array',
      items: SQL_VALUE_SCHEMA,
      maxItems: QUERY_LIMITS.maxParams,
      default: [],
      description: 'Bound to the `?` placeholders in order: a string, a number, null, or `{blob: <base64>}`.',
    }),
    ValidateIf((_object: object, value: unknown) => value !== undefined),
    IsArray(),
    ArrayMaxSize(QUERY_LIMITS.maxParams),
    ValidateBy({
      name: 'isSqlValues',
      validator: {
        validate: (value: unknown) => firstInvalid(value, booleans) === -1,
        defaultMessage: (args?: ValidationArguments) =>
          `${args?.property ?? 'params'}[${firstInvalid(args?.value, booleans)}] must be ${kinds} or {blob: <base64>}`,
      },
    }),
  );
}
