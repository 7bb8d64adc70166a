import { isDeepStrictEqual } from 'node:util';

/** A trigger's filter: payload path (dot-separated) → the value it must have. */
export type EventFilter = Record<string, unknown>;

const FILTER_MAX_BYTES = 4_096;
const FILTER_MAX_PATHS = 50;
const PATH_MAX_SEGMENTS = 20;

/** Why a filter cannot be used, or null when it can. */
export function filterProblem(filter: EventFilter | undefined): string | null {
  if (filter === undefined) return null;
  const paths = Object.keys(filter);
  if (paths.length > FILTER_MAX_PATHS) return `a filter has at most ${FILTER_MAX_PATHS} paths`;
  if (Buffer.byteLength(JSON.stringify(filter)) > FILTER_MAX_BYTES) {
    return `a filter is at most ${FILTER_MAX_BYTES} bytes of JSON`;
  }
  const bad = paths.find((path) => path === '' || path.split('.').length > PATH_MAX_SEGMENTS);
  return bad === undefined ? null : `"${bad}" is not a payload path`;
}

/** The same filter written in any key order gives the same key: such triggers share a subscription. */
export function filterKey(filter: EventFilter | undefined): string {
  return filter === undefined || Object.keys(filter).length === 0 ? '' : canonicalJson(filter);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A payload as filters read it: JSON when it is JSON, else nothing a path can reach. */
export function parsePayload(payload: string): unknown {
  try {
    return JSON.parse(payload) as unknown;
  } catch {
    return undefined;
  }
}

function valueAt(payload: unknown, path: string): unknown {
  let current = payload;
  for (const segment of path.split('.')) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/** Every path of the filter has its value in the payload (an absent filter matches everything). */
export function matchesFilter(filter: EventFilter | null | undefined, payload: unknown): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([path, expected]) =>
    isDeepStrictEqual(valueAt(payload, path), expected),
  );
}
