/**
 * Where a parsed JSON body holds the NUL character (U+0000) in a string or a key, as a path such as
 * `diagram.nodes[2].data.properties.label`, or undefined. Postgres stores neither `text` nor `jsonb`
 * with it, so such a body is refused before it reaches a service (it once answered 500).
 */
export function nulCharacterPath(value: unknown): string | undefined {
  const pending: [unknown, string][] = [[value, '']];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, path] = next;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return path;
    } else if (Array.isArray(current)) {
      current.forEach((item, index) => pending.push([item, `${path}[${index}]`]));
    } else if (current !== null && typeof current === 'object') {
      for (const [key, item] of Object.entries(current)) {
        const child = path === '' ? key : `${path}.${key}`;
        if (key.includes('\u0000')) return child;
        pending.push([item, child]);
      }
    }
  }
  return undefined;
}
