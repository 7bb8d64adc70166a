import { TextField } from '../common/field.decorators.js';
import { QUERY_LIMITS } from './query-limits.js';
import { SqlParamsField } from './sql-params.decorator.js';
import type { SqlValue } from './sql-value.js';

/** A statement sent by another service on `DatabaseSubjects.query`: as the route's, and booleans bind too. */
export class ServiceQueryStatementDto {
  @TextField({ min: 1, max: QUERY_LIMITS.maxSqlLength })
  sql!: string;

  @SqlParamsField({ booleans: true })
  params?: Array<SqlValue | boolean>;
}
