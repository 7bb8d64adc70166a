import { RUN_WAIT_MAX_SECONDS } from '#contracts';

/** Splits at `separator` where it is not inside a quoted-string (RFC 9110, 5.6.4). */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index] ?? '';
    if (quoted && character === '\\') {
      current += character + (text[index + 1] ?? '');
      index += 1;
      continue;
    }
    if (character === '"') quoted = !quoted;
    if (character === separator && !quoted) {
      parts.push(current);
      current = '';
    } else current += character;
  }
  parts.push(current);
  return parts;
}

/** A `word` (RFC 7240): a token, or a quoted-string whose escapes are undone. */
function wordValue(raw: string): string {
  const trimmed = raw.trim();
  if (trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"')) {
    return trimmed.slice(1, -1).replace(/\\(.)/g, '$1');
  }
  return trimmed;
}

/**
 * The preferences of `Prefer` headers (RFC 7240, section 2): name (lowercase) → value, `''` for a
 * preference without one. Several headers read as one list. Parameters after `;` are not needed by
 * any preference served here and are dropped. A preference named twice keeps its first value, as
 * section 2 asks.
 */
export function parsePrefer(header: string | readonly string[] | undefined): Map<string, string> {
  const preferences = new Map<string, string>();
  const text = typeof header === 'string' ? header : (header ?? []).join(',');
  for (const preference of splitOutsideQuotes(text, ',')) {
    const [head = ''] = splitOutsideQuotes(preference, ';');
    const equals = head.indexOf('=');
    const name = (equals < 0 ? head : head.slice(0, equals)).trim().toLowerCase();
    if (name === '' || preferences.has(name)) continue;
    preferences.set(name, equals < 0 ? '' : wordValue(head.slice(equals + 1)));
  }
  return preferences;
}

/**
 * The `wait` preference (RFC 7240, section 4.3) in whole seconds, at most `RUN_WAIT_MAX_SECONDS`; undefined
 * when absent or not delta-seconds, since a server ignores a preference it cannot read.
 */
export function preferredWaitSeconds(header: string | readonly string[] | undefined): number | undefined {
  const value = parsePrefer(header).get('wait');
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  return Math.min(Number(value), RUN_WAIT_MAX_SECONDS);
}
