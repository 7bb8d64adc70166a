import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * The rows of a hot read, run as a named prepared statement straight on the data source's pool:
 * Postgres parses and plans it once per connection rather than on every call, and TypeORM's query
 * runner (a checkout wrapped in its own bookkeeping) is skipped. For single-statement reads outside a
 * transaction; `name` must be unique per statement text across the service.
 */
export async function preparedRows<T>(
  dataSource: DataSource,
  name: string,
  text: string,
  values: unknown[],
): Promise<T[]> {
  // TypeORM's Postgres driver keeps its pg pool as `master`, typed `any`.
  const pool = (dataSource.driver as unknown as { master: Pool }).master;
  const result = await pool.query({ name, text, values });
  return result.rows as T[];
}
