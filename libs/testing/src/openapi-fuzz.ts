import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';

/**
 * Property-based requests from the gateway's OpenAPI document, and the check of every answer against
 * the document: its status must be one the operation lists, its body must match the schema listed for
 * that status, and an error's code must be one the status's description names.
 */

// ajv-formats is CommonJS with a default export; under ESM its function sits on `default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

type Schema = Record<string, unknown>;

/** The parts of an OpenAPI 3.1 document the fuzzing and the tests of the document read. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, Schema & { required?: string[] }> };
}

interface OpenApiOperation {
  parameters?: Array<{ name: string; in: string; schema?: Schema }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
}

export interface Operation {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  route: string;
  pathParams: string[];
  queryParams: string[];
  bodySchema?: Schema;
  /** Status → the error codes its description names (empty for a success). */
  statuses: Map<string, string[]>;
}

export interface FuzzRequest {
  method: string;
  path: string;
  /** A string is sent as is (malformed or oversize JSON); anything else as JSON. */
  body?: unknown;
}

export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [route, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (method === 'parameters') continue;
      const parameters = operation.parameters ?? [];
      const statuses = new Map<string, string[]>();
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const codes = /error\.code: (.*)$/.exec(response.description ?? '')?.[1];
        statuses.set(status, codes ? codes.split(',').map((code) => code.trim()) : []);
      }
      operations.push({
        method: method.toUpperCase() as Operation['method'],
        route,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: parameters.filter((p) => p.in === 'query').map((p) => p.name),
        bodySchema: operation.requestBody?.content?.['application/json']?.schema,
        statuses,
      });
    }
  }
  return operations;
}

/** Checks answers against the document; each problem is one line naming the request. */
export class ContractChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  private readonly validators = new Map<string, ValidateFunction | null>();

  constructor(private readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'openapi', components: document.components });
  }

  problems(operation: Operation, request: FuzzRequest, status: number, body: unknown): string[] {
    const where = `${request.method} ${request.path.slice(0, 200)} → ${status}`;
    if (status >= 500)
      return [
        `${where}: a server error for ${JSON.stringify(request.body)?.slice(0, 300)}: ${JSON.stringify(body).slice(0, 300)}`,
      ];
    const codes = operation.statuses.get(String(status));
    if (!codes) return [`${where}: a status ${operation.method} ${operation.route} does not list`];
    const validate = this.validatorFor(operation, String(status));
    if (validate && !validate(body))
      return [`${where}: body outside the schema: ${this.ajv.errorsText(validate.errors)}`];
    const code = (body as { error?: { code?: string } } | undefined)?.error?.code;
    if (codes.length > 0 && !codes.includes(code ?? ''))
      return [`${where}: error code ${code} is not one of ${codes.join(', ')}`];
    return [];
  }

  private validatorFor(operation: Operation, status: string): ValidateFunction | null {
    const key = `${operation.method} ${operation.route} ${status}`;
    if (!this.validators.has(key)) {
      const response =
        this.document.paths[operation.route]![operation.method.toLowerCase()]!.responses?.[status];
      const schema = response?.content?.['application/json']?.schema;
      this.validators.set(key, schema ? this.ajv.compile(rebased(schema)) : null);
    }
    return this.validators.get(key)!;
  }
}

/** `#/components/…` points into the document, which ajv holds under the id `openapi`. */
function rebased(schema: unknown): Schema {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'));
}

const hostile = fc.constantFrom(
  '',
  ' ',
  '%2e%2e',
  '0',
  '-1',
  'null',
  "' OR 1=1 --",
  '\u0000',
  '\ud800',
  'é'.repeat(300),
  '𝕏'.repeat(70),
  'a'.repeat(5000),
  '00000000-0000-0000-0000-000000000000',
  '{{id}}',
);

/**
 * SQL that once made DuckDB show the server's paths (the data directory, which names the
 * organization): sent as a query batch wherever a body takes `statements`, so a disclosure cannot
 * come back unnoticed.
 */
export const SQL_PROBES = [
  "SELECT current_setting('temp_directory')",
  'SELECT * FROM duckdb_settings()',
  'SELECT * FROM duckdb_databases()',
  'PRAGMA database_list',
  'SELECT * FROM duckdb_extensions()',
  'SELECT * FROM duckdb_temporary_files()',
  "SELECT * FROM read_csv('/etc/hostname')",
] as const;

/**
 * A lone surrogate cannot be percent-encoded as UTF-8; it goes as invalid UTF-8, itself a case worth
 * sending.
 */
function encodeSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}

/** A nested array `depth` deep, as JSON text: deeper than any parser should be made to follow. */
const deepJson = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/**
 * A request for `operation`: path parameters from `known` (ids that exist, of this organization or of
 * another), random or hostile strings; query strings with huge, negative and non-numeric limits and
 * malformed cursors; bodies built from the request schema, arbitrary JSON, deep JSON, invalid JSON,
 * unicode edge cases and (rarely) bodies over the size limit.
 */
export function requestFor(
  operation: Operation,
  known: fc.Arbitrary<string>,
  { oversizeBytes, components }: { oversizeBytes: number; components: Record<string, Schema> },
): fc.Arbitrary<FuzzRequest> {
  // An empty or dot segment (`.`, `..`, even percent-encoded: RFC 3986 equates them) makes another
  // route's path, or none, not a request to this one.
  const segment = fc
    .oneof(
      { weight: 4, arbitrary: known },
      { weight: 2, arbitrary: fc.uuid() },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
      { weight: 2, arbitrary: hostile },
    )
    .filter((value) => !/^\.*$/.test(value));
  const path = fc
    .tuple(...operation.pathParams.map(() => segment))
    .map((values) =>
      operation.pathParams.reduce(
        (route, name, index) => route.replace(`{${name}}`, encodeSegment(values[index] ?? '')),
        operation.route,
      ),
    );
  const queryValue = fc.oneof(
    fc.integer({ min: -10, max: 200 }).map(String),
    fc.constantFrom('1e9', '99999999999999999999', 'NaN', '', '1.5', '0x10', '[]'),
    fc.base64String({ maxLength: 60 }),
    hostile,
  );
  const query = fc
    .subarray(operation.queryParams)
    .chain((names) => fc.tuple(...names.map((name) => queryValue.map((value) => [name, value] as const))))
    .map((pairs) => (pairs.length === 0 ? '' : `?${new URLSearchParams(pairs as [string, string][])}`));
  const body = operation.bodySchema
    ? fc.oneof(
        { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => value as unknown) },
        { weight: 6, arbitrary: objectLike(operation.bodySchema, components) },
        { weight: 1, arbitrary: fc.constantFrom('{', '{"a":', 'nul', '\ud800', '[1,]') },
        { weight: 1, arbitrary: fc.integer({ min: 2_000, max: 20_000 }).map(deepJson) },
        {
          weight: 1,
          arbitrary: fc.string({ unit: 'binary', maxLength: 200 }).map((text) => ({ name: text })),
        },
        { weight: 1, arbitrary: fc.constant(`"${'x'.repeat(oversizeBytes)}"`) },
        ...(propertiesOf(operation.bodySchema, components).includes('statements')
          ? [
              {
                weight: 3,
                arbitrary: fc.constantFrom(...SQL_PROBES).map((sql) => ({ statements: [{ sql }] })),
              },
            ]
          : []),
      )
    : fc.constant(undefined);
  return fc.record({
    method: fc.constant(operation.method),
    path: fc.tuple(path, query).map(([p, q]) => p + q),
    body,
  });
}

/** The property names of a body schema, following its `$ref`. */
function propertiesOf(schema: Schema, components: Record<string, Schema>): string[] {
  const ref = /^#\/components\/schemas\/(.+)$/.exec(String(schema.$ref ?? ''))?.[1];
  const resolved = ref ? (components[ref] ?? {}) : schema;
  return Object.keys((resolved as { properties?: object }).properties ?? {});
}

/** Objects with the schema's property names and values of any type: the validators' side of fuzzing. */
function objectLike(schema: Schema, components: Record<string, Schema>): fc.Arbitrary<unknown> {
  const names = propertiesOf(schema, components);
  const value = fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 120 }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.jsonValue({ maxDepth: 3 }),
    hostile,
  );
  return fc.dictionary(fc.constantFrom(...(names.length > 0 ? names : ['name'])), value, { maxKeys: 4 });
}
