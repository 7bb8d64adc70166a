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
