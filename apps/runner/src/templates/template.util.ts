/**
 * The template language of node properties:
 *   {{trigger}}                       the raw run input
 *   {{trigger.<path>}}                a value of the JSON input, by dotted path (array indexes as numbers)
 *   {{nodes.<nodeId>.<field>}}        an output field of an earlier step
 *   {{nodes.<nodeId>.<field>.<path>}} a value inside a field that holds JSON text (e.g. database `rows`)
 *   {{loop.item}}, {{loop.item.<path>}}, {{loop.index}}
 *                                     in a loop iteration: its item and index (the innermost loop's)
 * Objects and arrays render as JSON text; a missing path, null and anything unknown render empty.
 */

import { DIAGRAM_ID_MAX_LENGTH } from '#contracts';

/** Output fields of the steps that are done, by node id. */
export type StepOutputs = Pick<ReadonlyMap<string, Readonly<Record<string, string>>>, 'has' | 'get'>;

/**
 * A loop iteration's outputs: its own steps', then those it inherits from the runs around it (the
 * steps before its loop, and before each enclosing loop), its own first.
 */
export function layeredOutputs(own: StepOutputs, inherited: StepOutputs): StepOutputs {
  return {
    has: (id) => own.has(id) || inherited.has(id),
    get: (id) => own.get(id) ?? inherited.get(id),
  };
}

export interface TemplateScope {
  /** The raw trigger input. */
  readonly input: string;
  readonly outputs: StepOutputs;
  /** In a loop iteration, its loop node: that step's output (`item`, `index`) is `{{loop.…}}`. */
  readonly loopNodeId?: string;
}

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
    const nodeId = longestNodeId(rest, scope.outputs);
    const output = nodeId === undefined ? undefined : scope.outputs.get(nodeId);
    if (nodeId === undefined || output === undefined) return undefined;
    return readField(output, rest.slice(nodeId.length));
  }
  if (expression.startsWith('loop.') && scope.loopNodeId !== undefined) {
    const output = scope.outputs.get(scope.loopNodeId);
    return output === undefined ? undefined : readField(output, expression.slice('loop.'.length));
  }
  return undefined;
}

/** `<field>.<path>` of a step's output. */
function readField(output: Readonly<Record<string, string>>, fieldPath: string): unknown {
  const [field, ...path] = pathSegments(fieldPath);
  if (field === undefined) return undefined;
  const value = Object.hasOwn(output, field) ? output[field] : undefined;
  return value === undefined ? undefined : readJsonPath(output, field, value, path);
}

/**
 * Node ids may contain dots: the longest id of a step that has run that is `rest` or a prefix of it
 * ending before a dot. Looked up per dot rather than by comparing every id, and only as far as an id
 * can be long, so an expression costs at most a few hundred lookups however many steps the run has
 * and however long the expression is.
 */
function longestNodeId(rest: string, outputs: TemplateScope['outputs']): string | undefined {
  if (rest.length <= DIAGRAM_ID_MAX_LENGTH && outputs.has(rest)) return rest;
  const last = rest.lastIndexOf('.', DIAGRAM_ID_MAX_LENGTH);
  for (let dot = last; dot > 0; dot = rest.lastIndexOf('.', dot - 1)) {
    const candidate = rest.slice(0, dot);
    if (outputs.has(candidate)) return candidate;
  }
  return undefined;
}

/** Rendering stopped because the text would pass `limitBytes` UTF-8 bytes. */
export class TemplateTooLarge extends Error {
  constructor(readonly limitBytes: number) {
    super(`the rendered text would be more than ${limitBytes} bytes`);
    this.name = 'TemplateTooLarge';
  }
}

/**
 * Renders `template`, at most `maxBytes` UTF-8 bytes of it: the text is built piece by piece and
 * rendering stops with TemplateTooLarge at the first piece that passes the limit, so a property
 * repeating a large value never builds the whole text first. Each piece is a stretch of the template
 * or one expression's value, itself no longer than the input or output field it comes from.
 *
 * `{{ expression }}` is found by a scan rather than a regular expression: `/\{\{\s*([^{}]*?)\s*\}\}/g`,
 * which it replaces and matches exactly, takes cubic time on a `{{` followed by blanks and no `}}`
 * (5,000 blanks held the event loop for 20 s).
 */
export function renderTemplate(template: string, scope: TemplateScope, maxBytes: number): string {
  const pieces: string[] = [];
  let bytes = 0;
  const add = (piece: string) => {
    if (piece === '') return;
    // A UTF-8 byte count is never below the UTF-16 length: a long piece fails without being measured.
    bytes += piece.length > maxBytes ? piece.length : Buffer.byteLength(piece);
    if (bytes > maxBytes) throw new TemplateTooLarge(maxBytes);
    pieces.push(piece);
  };
  let from = 0;
  let copied = 0;
  for (let open = template.indexOf('{{'); open >= 0; open = template.indexOf('{{', from)) {
    const close = nextBrace(template, open + 2);
    if (close < 0 || template[close] !== '}' || template[close + 1] !== '}') {
      // No expression starts here; one may start at the next brace (as in `{{{x}}`).
      from = open + 1;
      continue;
    }
    add(template.slice(copied, open));
    add(toText(resolveExpression(template.slice(open + 2, close).trim(), scope)));
    copied = from = close + 2;
  }
  add(template.slice(copied));
  return pieces.length === 1 ? (pieces[0] as string) : pieces.join('');
}

/** The index of the first `{` or `}` at or after `from`, or -1. */
function nextBrace(text: string, from: number): number {
  for (let index = from; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 0x7b || code === 0x7d) return index;
  }
  return -1;
}

/**
 * Renders every string leaf of a JSON value (an action's `input` object) with `renderLeaf`, which
 * gets each leaf's path from `path` (`input.body`, `input.items[2]`) to name it in an error.
 */
export function renderDeep(
  value: unknown,
  renderLeaf: (template: string, path: string) => string,
  path: string,
): unknown {
  if (typeof value === 'string') return renderLeaf(value, path);
  if (Array.isArray(value))
    return value.map((item, index) => renderDeep(item, renderLeaf, `${path}[${index}]`));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, renderDeep(item, renderLeaf, `${path}.${key}`)]),
    );
  }
  return value;
}
