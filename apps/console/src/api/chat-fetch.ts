import { toApiError } from './errors';

/**
 * The fetch of a `useChat` transport: a refusal before the stream starts (an unknown agent or
 * workflow, no model provider configured) is thrown as an ApiError, so the chat's `error` reads as
 * the API's message rather than as the JSON body.
 */
export async function chatFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (!response.ok) {
    const body: unknown = await response.json().catch(() => null);
    throw toApiError(response.status, body);
  }
  return response;
}
