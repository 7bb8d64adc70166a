import type { DataSource, EntityManager } from 'typeorm';

/**
 * The rows a statement answers. TypeORM's Postgres driver answers `[rows, count]` for UPDATE and
 * DELETE (with or without RETURNING) and the rows alone for everything else.
 */
export async function queryRows<T>(
  runner: DataSource | EntityManager,
  sql: string,
  parameters: unknown[] = [],
): Promise<T[]> {
  const raw: unknown = await runner.query(sql, parameters);
  if (Array.isArray(raw) && raw.length === 2 && Array.isArray(raw[0]) && typeof raw[1] === 'number') {
    return raw[0] as T[];
  }
  return raw as T[];
}
