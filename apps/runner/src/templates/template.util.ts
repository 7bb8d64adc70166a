/**
 * The template language of node properties:
 *   {{trigger}}                       the raw run input
 *   {{trigger.<path>}}                a value of the JSON input, by dotted path (array indexes as numbers)
 *   {{nodes.<nodeId>.<field>}}        an output field of an earlier step
 *   {{nodes.<nodeId>.<field>.<path>}} a value inside a field that holds JSON text (e.g. database `rows`)
 * Objects and arrays render as JSON text; a missing path, null and anything unknown render empty.
 */

export interface TemplateScope {
  /** The raw trigger input. */
  readonly input: string;
  /** Output fields of the steps that are done, by node id. */
  readonly outputs: ReadonlyMap<string, Readonly<Record<string, string>>>;
}

const EXPRESSION = /\{\{\s*([^{}]*?)\s*\}\}/g;
const NOT_JSON = Symbol('not json');

/** Parsed JSON text, memoized: a run renders many templates against the same input and outputs. */
const parsedCache = new WeakMap<object, Map<string, unknown>>();

function parseJson(owner: object, key: string, text: string): unknown {
  let cache = parsedCache.get(owner);
  if (!cache) {
    cache = new Map();
    parsedCache.set(owner, cache);
  }
  if (cache.has(key)) return cache.get(key);
  let value: unknown = NOT_JSON;
  const trimmed = text.trimStart();
  // Only objects and arrays are paths into; a bare number or string has no fields.
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      value = JSON.parse(text);
    } catch {
      value = NOT_JSON;
    }
  }
  cache.set(key, value);
  return value;
}

/** `a.b[0].c` → ['a', 'b', '0', 'c']. */
export function pathSegments(path: string): string[] {
  return path
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter((segment) => segment !== '');
}

function dig(value: unknown, segments: string[]): unknown {
  let current = value;
  for (const segment of segments) {
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(segment)) return undefined;
      current = current[Number(segment)];
    } else if (typeof current === 'object' && current !== null && Object.hasOwn(current, segment)) {
      current = (current as Record<string, unknown>)[segment];
    } else {
      return undefined;
    }
  }
  return current;
}

export function toText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  return JSON.stringify(value);
}

/** Reads `path` inside JSON `text`; empty path answers the text itself. */
function readJsonPath(owner: object, key: string, text: string, segments: string[]): unknown {
  if (segments.length === 0) return text;
  const parsed = parseJson(owner, key, text);
  return parsed === NOT_JSON ? undefined : dig(parsed, segments);
}

/** The value one `{{expression}}` stands for, or undefined when it names nothing. */
export function resolveExpression(expression: string, scope: TemplateScope): unknown {
  if (expression === 'trigger') return scope.input;
  if (expression.startsWith('trigger.')) {
    return readJsonPath(scope, 'trigger', scope.input, pathSegments(expression.slice('trigger.'.length)));
  }
  if (expression.startsWith('nodes.')) {
    const rest = expression.slice('nodes.'.length);
    // Node ids may contain dots: the longest id that prefixes the rest wins.
    let nodeId: string | undefined;
    for (const id of scope.outputs.keys()) {
      if ((rest === id || rest.startsWith(`${id}.`)) && (nodeId === undefined || id.length > nodeId.length)) {
        nodeId = id;
      }
    }
    const output = nodeId === undefined ? undefined : scope.outputs.get(nodeId);
    if (nodeId === undefined || output === undefined) return undefined;
    const [field, ...path] = pathSegments(rest.slice(nodeId.length));
    if (field === undefined) return undefined;
    const value = Object.hasOwn(output, field) ? output[field] : undefined;
    return value === undefined ? undefined : readJsonPath(output, field, value, path);
  }
  return undefined;
}

export function renderTemplate(template: string, scope: TemplateScope): string {
  if (!template.includes('{{')) return template;
  return template.replace(EXPRESSION, (_match, expression: string) =>
    toText(resolveExpression(expression, scope)),
  );
}

/** Renders every string leaf of a JSON value (an action's `input` object, a database step's params). */
export function renderDeep(value: unknown, scope: TemplateScope): unknown {
  if (typeof value === 'string') return renderTemplate(value, scope);
  if (Array.isArray(value)) return value.map((item) => renderDeep(item, scope));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renderDeep(item, scope)]));
  }
  return value;
}
