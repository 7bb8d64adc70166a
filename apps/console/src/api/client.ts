import createClient from 'openapi-fetch';

import { ApiError, toApiError } from './errors';
import type { components, paths } from './schema.gen';

export type Schemas = components['schemas'];

/**
 * The typed client of `/api/v1`, generated from the gateway's OpenAPI document. The session cookie
 * goes with every request (same origin), so the API sees the signed-in member.
 */
export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });

/** The data of a response, or its error thrown as an ApiError (for TanStack Query). */
export async function unwrap<T>(
  request: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await request;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw toApiError(0, null);
  }
  if (!result.response.ok || result.data === undefined) {
    throw toApiError(result.response.status, result.error);
  }
  return result.data;
}

/**
 * A JSON request to a browser route outside `/api/v1` (`/api/auth/*` of better-auth, `/app/*`),
 * which the API document leaves out; each caller names the answer's type.
 */
export async function browserFetch<T>(
  path: string,
  { method = 'GET', body }: { method?: string; body?: unknown } = {},
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
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
  return parsed as T;
}
