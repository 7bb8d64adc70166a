import type { SqlCell } from '#contracts';
import {
  DuckDBArrayValue,
  DuckDBBlobValue,
  type DuckDBDataChunk,
  DuckDBDateValue,
  DuckDBDecimalValue,
  DuckDBListValue,
  DuckDBMapValue,
  DuckDBStructValue,
  type DuckDBType,
  DuckDBTypeId,
  DuckDBUnionValue,
  type DuckDBValue,
  DuckDBVariantValue,
} from '@duckdb/node-api';

/**
 * How each SQL value becomes a cell of a QueryResult (docs/databases.md, "Cells"):
 * - BOOLEAN → boolean; integers up to 32 bits and FLOAT/DOUBLE → number (NaN and infinities → the
 *   strings DuckDB prints for them: `nan`, `inf`, `-inf`).
 * - BIGINT, UBIGINT, HUGEINT, UHUGEINT, BIGNUM and DECIMAL → a string of the exact digits: a JSON
 *   number would lose precision past 2^53 in most clients.
 * - BLOB → `{blob: <base64>}`.
 * - Dates, times, timestamps, intervals, UUID, BIT → DuckDB's own text for the value (what
 *   `CAST(x AS VARCHAR)` gives; TIMESTAMPTZ in UTC), which DuckDB reads back unchanged.
 * - LIST, ARRAY, STRUCT, MAP, UNION, VARIANT → JSON text, so a cell is never an object that could be
 *   mistaken for a BLOB.
 */
export type CellConverter = (value: DuckDBValue) => SqlCell;

const identity: CellConverter = (value) => value as SqlCell;

function nonFiniteText(value: number): string {
  return Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf';
}

const floatCell: CellConverter = (value) =>
  typeof value === 'number' && !Number.isFinite(value) ? nonFiniteText(value) : (value as number | null);

const textCell: CellConverter = (value) => (value === null ? null : dateAwareText(value));

const blobCell: CellConverter = (value) =>
  value instanceof DuckDBBlobValue ? { blob: base64(value.bytes) } : (value as null);

const jsonTextCell: CellConverter = (value) => (value === null ? null : nestedJson(value));

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** node-api prints infinite dates as a far-off calendar date; DuckDB prints `infinity`. */
function dateAwareText(value: Exclude<DuckDBValue, null>): string {
  if (value instanceof DuckDBDateValue && !value.isFinite) {
    return value.days > 0 ? 'infinity' : '-infinity';
  }
  return String(value);
}

export function cellConverterFor(type: DuckDBType): CellConverter {
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
    case DuckDBTypeId.TINYINT:
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.UTINYINT:
    case DuckDBTypeId.USMALLINT:
    case DuckDBTypeId.UINTEGER:
    case DuckDBTypeId.VARCHAR:
    case DuckDBTypeId.ENUM:
    case DuckDBTypeId.SQLNULL:
      return identity;
    case DuckDBTypeId.FLOAT:
    case DuckDBTypeId.DOUBLE:
      return floatCell;
    case DuckDBTypeId.BLOB:
      return blobCell;
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY:
    case DuckDBTypeId.STRUCT:
    case DuckDBTypeId.MAP:
    case DuckDBTypeId.UNION:
    case DuckDBTypeId.VARIANT:
      return jsonTextCell;
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
    case DuckDBTypeId.BIGNUM:
    case DuckDBTypeId.DECIMAL:
    case DuckDBTypeId.DATE:
    case DuckDBTypeId.TIME:
    case DuckDBTypeId.TIME_NS:
    case DuckDBTypeId.TIME_TZ:
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_NS:
    case DuckDBTypeId.TIMESTAMP_TZ:
    case DuckDBTypeId.INTERVAL:
    case DuckDBTypeId.UUID:
    case DuckDBTypeId.BIT:
    case DuckDBTypeId.GEOMETRY:
    case DuckDBTypeId.ANY:
    case DuckDBTypeId.STRING_LITERAL:
    case DuckDBTypeId.INTEGER_LITERAL:
      return textCell;
  }
}

/**
 * JSON text of a nested value. Inside it, integers and decimals are JSON numbers written with every
 * digit (JSON text has no precision limit; a client that needs them exact parses with big numbers),
 * BLOBs are `{"blob": <base64>}`, and other values are as in a top-level cell.
 */
export function nestedJson(value: DuckDBValue): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    return Number.isFinite(value) ? String(value) : JSON.stringify(nonFiniteText(value));
  }
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return JSON.stringify(value);
  if (value instanceof DuckDBDecimalValue) return value.toString();
  if (value instanceof DuckDBBlobValue) return `{"blob":${JSON.stringify(base64(value.bytes))}}`;
  if (value instanceof DuckDBListValue || value instanceof DuckDBArrayValue) {
    return `[${value.items.map(nestedJson).join(',')}]`;
  }
  if (value instanceof DuckDBStructValue) {
    const fields = Object.entries(value.entries).map(
      ([key, item]) => `${JSON.stringify(key)}:${nestedJson(item)}`,
    );
    return `{${fields.join(',')}}`;
  }
  if (value instanceof DuckDBMapValue) {
    const fields = value.entries.map(
      ({ key, value: item }) => `${JSON.stringify(mapKeyText(key))}:${nestedJson(item)}`,
    );
    return `{${fields.join(',')}}`;
  }
  if (value instanceof DuckDBUnionValue || value instanceof DuckDBVariantValue)
    return nestedJson(value.value);
  return JSON.stringify(dateAwareText(value));
}

/** JSON object keys are text: a key that renders as a JSON string is used unquoted. */
function mapKeyText(key: DuckDBValue): string {
  if (typeof key === 'string') return key;
  const json = nestedJson(key);
  return json.startsWith('"') ? (JSON.parse(json) as string) : json;
}

/** Rows turned into JSON at a time: small enough that a chunk of huge rows stops at the limit early. */
const SLICE_ROWS = 256;

/**
 * The rows of one chunk as JSON text without the enclosing brackets (`[..],[..]`), a slice of rows
 * at a time, so the rows of a whole result are joined without building one large array and the
 * caller can stop as soon as the result passes its size limit.
 */
export function* chunkRowSlices(
  chunk: DuckDBDataChunk,
  converters: readonly CellConverter[],
): Generator<string, void, undefined> {
  const rowCount = chunk.rowCount;
  const vectors = converters.map((_converter, column) => chunk.getColumnVector(column));
  for (let start = 0; start < rowCount; start += SLICE_ROWS) {
    const end = Math.min(rowCount, start + SLICE_ROWS);
    const rows = new Array<SqlCell[]>(end - start);
    for (let row = start; row < end; row += 1) {
      const cells = new Array<SqlCell>(converters.length);
      for (let column = 0; column < converters.length; column += 1) {
        const value = vectors[column].getItem(row);
        cells[column] = value === null ? null : converters[column](value);
      }
      rows[row - start] = cells;
    }
    yield JSON.stringify(rows).slice(1, -1);
  }
}
