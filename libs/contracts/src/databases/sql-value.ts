/**
 * The values a query carries. Input cells are strings, numbers, null and `{blob: <base64>}`; output
 * cells add booleans. How every SQL type becomes a cell is decided in docs/databases.md.
 */
export interface SqlBlob {
  /** The bytes, base64-encoded (standard alphabet, padded). */
  blob: string;
}

export type SqlValue = string | number | null | SqlBlob;

export type SqlCell = string | number | boolean | null | SqlBlob;

const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function isBase64(value: string): boolean {
  return BASE64_PATTERN.test(value);
}

export function isSqlBlob(value: unknown): value is SqlBlob {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  const blob = (value as { blob?: unknown }).blob;
  return keys.length === 1 && keys[0] === 'blob' && typeof blob === 'string' && isBase64(blob);
}

export function isSqlValue(value: unknown): value is SqlValue {
  return (
    value === null ||
    typeof value === 'string' ||
    (typeof value === 'number' && Number.isFinite(value)) ||
    isSqlBlob(value)
  );
}

const BLOB_SCHEMA = {
  type: 'object',
  properties: { blob: { type: 'string', format: 'byte', description: 'Base64 of the bytes.' } },
  required: ['blob'],
  additionalProperties: false,
};

/** OpenAPI schema of an input cell. */
export const SQL_VALUE_SCHEMA = {
  oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }, BLOB_SCHEMA],
};

/** OpenAPI schema of an output cell. */
export const SQL_CELL_SCHEMA = {
  oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }, BLOB_SCHEMA],
};
