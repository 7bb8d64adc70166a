import { TextField } from '../common/field.decorators.js';
import { QUERY_LIMITS } from './query-limits.js';
import { SqlParamsField } from './sql-params.decorator.js';
import type { SqlValue } from './sql-value.js';

export class QueryStatementDto {
  /** One SQL statement (DuckDB dialect). */
  @TextField({
    min: 1,
    max: QUERY_LIMITS.maxSqlLength,
    description: 'One SQL statement (DuckDB dialect); `?` placeholders take `params` in order.',
    example: 'SELECT id, name FROM customers WHERE country = ?',
  })
  sql!: string;

  @SqlParamsField()
  params?: SqlValue[];
}
