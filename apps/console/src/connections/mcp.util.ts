/** One header row of the Connect form: both empty is a row the member added and left. */
export interface HeaderRow {
  name: string;
  value: string;
}

export interface McpConfigInput {
  url: string;
  bearerToken: string;
  headers: HeaderRow[];
}

export type McpConfigResult =
  { config: Record<string, unknown> } | { issue: { path: 'config.headers'; message: string } };

/**
 * The `config` of a new `mcp` connection from the form: optional parts left empty are left out, since
 * the events service refuses an empty `bearerToken`. The rest is checked there, where the rules live;
 * only what the form's rows can get wrong on their own is caught here, because headers go as an
 * object and a repeated or unnamed row would silently lose a value.
 */
export function mcpConfigOf({ url, bearerToken, headers }: McpConfigInput): McpConfigResult {
  const config: Record<string, unknown> = { url: url.trim() };
  const token = bearerToken.trim();
  if (token !== '') config.bearerToken = token;
  const sent: Record<string, string> = {};
  const seen = new Set<string>();
  for (const row of headers) {
    const name = row.name.trim();
    if (name === '' && row.value === '') continue;
    if (name === '') return { issue: { path: 'config.headers', message: 'Each header needs a name.' } };
    // Header names are case-insensitive: the service would keep one of the two.
    if (seen.has(name.toLowerCase())) {
      return { issue: { path: 'config.headers', message: `The header ${name} is given twice.` } };
    }
    seen.add(name.toLowerCase());
    sent[name] = row.value;
  }
  if (seen.size > 0) config.headers = sent;
  return { config };
}

/** A tool's arguments as its input schema names them, the required ones marked; [] for none. */
export function toolArguments(inputSchema: Record<string, unknown>): string[] {
  // The schema is the server's own, sent as it is: read it without trusting its shape.
  const { properties, required } = inputSchema;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return [];
  const needed = new Set(Array.isArray(required) ? required.filter((n) => typeof n === 'string') : []);
  return Object.keys(properties).map((name) => (needed.has(name) ? `${name} (required)` : name));
}
