import type { SqlValue } from '#contracts';
import type { DuckDBPreparedStatement } from '@duckdb/node-api';

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/**
 * Binds input cells to `?` placeholders in order. Numbers are typed as DuckDB types an integer or
 * decimal literal (INTEGER, BIGINT past 32 bits, DOUBLE otherwise), so `SELECT ? + 1` computes what
 * `SELECT 5 + 1` would; strings bind as VARCHAR and DuckDB casts them where a placeholder needs a
 * DATE, DECIMAL, BIGINT and so on.
 */
export function bindParams(
  statement: DuckDBPreparedStatement,
  params: ReadonlyArray<SqlValue | boolean>,
): void {
  params.forEach((param, index) => {
    const position = index + 1;
    if (param === null) {
      statement.bindNull(position);
    } else if (typeof param === 'string') {
      statement.bindVarchar(position, param);
    } else if (typeof param === 'boolean') {
      statement.bindBoolean(position, param);
    } else if (typeof param === 'number') {
      if (Number.isInteger(param) && param >= INT32_MIN && param <= INT32_MAX) {
        statement.bindInteger(position, param);
      } else if (Number.isSafeInteger(param)) {
        statement.bindBigInt(position, BigInt(param));
      } else {
        statement.bindDouble(position, param);
      }
    } else {
      statement.bindBlob(position, Buffer.from(param.blob, 'base64'));
    }
  });
}
