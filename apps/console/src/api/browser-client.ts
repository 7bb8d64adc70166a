import type { BrowserRoute, BrowserRoutes } from './browser-routes';
import { toApiError } from './errors';

type Input<R extends BrowserRoute> = Omit<BrowserRoutes[R], 'answer'>;

/** What a route takes, as the second argument; none for a route that takes nothing. */
type InputArgument<R extends BrowserRoute> = keyof Input<R> extends never ? [] : [Input<R>];

interface AnyInput {
  path?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
  body?: unknown;
}

/**
 * Calls a browser-only route of `BrowserRoutes` by its name (`'GET /app/keys'`) with the session
 * cookie, and answers its typed JSON, or throws what it refused as an ApiError (for TanStack Query).
 */
export function browserRequest<R extends BrowserRoute>(
  route: R,
  ...[input]: InputArgument<R>
): Promise<BrowserRoutes[R]['answer']> {
  const [method = 'GET', template = ''] = route.split(' ');
  const { path = {}, query, body } = (input ?? {}) as AnyInput;
  const pathname = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(path[name] ?? ''));
  const search = query
    ? `?${new URLSearchParams(Object.entries(query).map(([key, value]) => [key, String(value)])).toString()}`
    : '';
  // better-auth checks a POST's body against an object schema (sign-out's too): none would fail it.
  const json = body ?? (method === 'POST' ? {} : undefined);
  return send(method, `${pathname}${search}`, json) as Promise<BrowserRoutes[R]['answer']>;
}

async function send(method: string, url: string, body: unknown): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw toApiError(0, null);
  }
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = null;
  }
  if (!response.ok) throw toApiError(response.status, parsed);
  return parsed;
}
