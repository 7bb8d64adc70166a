import { afterEach, describe, expect, it, jest } from '@jest/globals';

import { browserRequest } from './browser-client';
import { ApiError } from './errors';

const realFetch = globalThis.fetch;

/** Answers every request with `status` and `body`, and keeps what was asked. */
function answer(status: number, body: string) {
  const fetch = jest.fn<typeof globalThis.fetch>(() =>
    Promise.resolve(new Response(body === '' ? null : body, { status })),
  );
  globalThis.fetch = fetch;
  return fetch;
}

afterEach(() => {
  globalThis.fetch = realFetch;
});

describe('browserRequest', () => {
  it('fills the path from `path`, escaped, and adds `query`', async () => {
    const fetch = answer(200, '{"data":[]}');
    await browserRequest('GET /app/agents/{id}/threads', { path: { id: 'a/b' }, query: { limit: 50 } });
    expect(fetch.mock.calls[0]?.[0]).toBe('/app/agents/a%2Fb/threads?limit=50');
    expect(fetch.mock.calls[0]?.[1]).toEqual({ method: 'GET', credentials: 'same-origin', headers: {} });
  });

  it('sends a body as JSON, and `{}` with a POST that takes none', async () => {
    const fetch = answer(200, '{"success":true}');
    await browserRequest('POST /app/keys', { body: { name: 'ci' } });
    await browserRequest('POST /api/auth/sign-out');
    expect(fetch.mock.calls.map(([, init]) => init?.body)).toEqual(['{"name":"ci"}', '{}']);
    expect(fetch.mock.calls[1]?.[1]?.headers).toEqual({ 'content-type': 'application/json' });
  });

  it('sends no body with a DELETE, and answers an empty response as null', async () => {
    const fetch = answer(200, '');
    await expect(browserRequest('DELETE /app/keys/{id}', { path: { id: 'k1' } })).resolves.toBeNull();
    expect(fetch.mock.calls[0]?.[1]).toEqual({ method: 'DELETE', credentials: 'same-origin', headers: {} });
  });

  it('throws a refusal as an ApiError in its words', async () => {
    answer(403, '{"error":{"code":"forbidden","message":"Owners and admins only."}}');
    const refusal = browserRequest('GET /app/keys');
    await expect(refusal).rejects.toBeInstanceOf(ApiError);
    await expect(refusal).rejects.toMatchObject({ status: 403, code: 'forbidden' });
  });
});
