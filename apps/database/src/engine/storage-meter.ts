import { stat } from 'node:fs/promises';

import type { DuckDBConnection } from '@duckdb/node-api';

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

async function firstNumber(connection: DuckDBConnection, sql: string): Promise<number> {
  const reader = await connection.runAndReadAll(sql);
  const value = reader.getRows()[0]?.[0];
  return typeof value === 'bigint' || typeof value === 'number' ? Number(value) : 0;
}

const USED_BLOCKS = `(SELECT used_blocks::BIGINT * block_size::BIGINT FROM pragma_database_size()
  WHERE database_name = current_database())`;

/**
 * Rows an open write transaction holds in memory: DuckDB writes large inserts into the file as they
 * run, and the rest into the log when the transaction commits. Writers take turns on a database, so
 * all of it is the current writer's.
 */
const PENDING_ROWS = `(SELECT coalesce(sum(memory_usage_bytes), 0)::BIGINT FROM duckdb_memory()
  WHERE tag = 'IN_MEMORY_TABLE')`;

/**
 * What a database holds, as its plan's storage counts it: the blocks its data uses in the file plus
 * its write-ahead log. The file may be larger: blocks freed by deletes and rolled-back writes stay
 * in it, and DuckDB uses them again before the file grows. With `pending`, the rows the open write
 * transaction still holds in memory count too: what the database would hold after COMMIT.
 */
export async function storedBytes(
  connection: DuckDBConnection,
  path: string,
  { pending = false }: { pending?: boolean } = {},
): Promise<number> {
  const [blocks, log] = await Promise.all([
    firstNumber(connection, `SELECT ${USED_BLOCKS}${pending ? ` + ${PENDING_ROWS}` : ''}`),
    sizeOf(`${path}.wal`),
  ]);
  return blocks + log;
}

/** The file and its log as they are on disk now: what a statement writing into them grows. */
export async function diskBytes(path: string): Promise<number> {
  const [file, log] = await Promise.all([sizeOf(path), sizeOf(`${path}.wal`)]);
  return file + log;
}
