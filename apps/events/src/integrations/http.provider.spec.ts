import type { DomainException } from '#common';

import { OutboundHttp } from '../outbound/outbound-http.js';
import { HttpProvider } from './http.provider.js';

describe('HttpProvider credentials', () => {
  const http = new OutboundHttp(false, 1_024);
  const provider = new HttpProvider(http);

  afterAll(() => http.close());

  const issueOf = (act: () => unknown) => {
    try {
      act();
    } catch (error) {
      return (error as DomainException).details?.issues;
    }
    return undefined;
  };

  it('keeps headers with the origins they may go to, and asks for origins when there are headers', () => {
    expect(
      provider.connect({
        headers: { Authorization: 'Bearer t' },
        allowedOrigins: ['https://API.example.com'],
      }),
    ).toEqual({
      credentials: { headers: { authorization: 'Bearer t' }, allowedOrigins: ['https://api.example.com'] },
    });
    expect(provider.connect({})).toEqual({ credentials: { headers: {} } });
    expect(issueOf(() => provider.connect({ headers: { authorization: 'Bearer t' } }))).toEqual([
      { path: 'config.allowedOrigins', message: expect.stringMatching(/must list the origins/) },
    ]);
    expect(issueOf(() => provider.connect({ allowedOrigins: ['https://api.example.com'] }))).toEqual([
      { path: 'config.allowedOrigins', message: expect.stringMatching(/has no headers/) },
    ]);
  });

  it('shows the origins, none for a connection made before they existed, and changes them', () => {
    const old = { headers: { authorization: 'Bearer t' } };
    expect(provider.settings(old)).toEqual({ allowedOrigins: [] });
    expect(provider.settings({ headers: {} })).toEqual({});
    const changed = provider.configure(old, { allowedOrigins: ['https://api.example.com:443'] });
    expect(changed).toEqual({ ...old, allowedOrigins: ['https://api.example.com'] });
    expect(provider.settings(changed)).toEqual({ allowedOrigins: ['https://api.example.com'] });
    expect(
      issueOf(() => provider.configure({ headers: {} }, { allowedOrigins: ['https://a.example'] })),
    ).toEqual([{ path: 'allowedOrigins', message: expect.stringMatching(/has no headers/) }]);
  });

  it('sends nothing for a connection with headers and no origins, and says how to fix it', async () => {
    const attempt = provider.execute({
      connection: {
        id: 'c',
        organizationId: 'o',
        integrationId: 'http',
        health: 'healthy',
        credentials: { headers: { authorization: 'Bearer t' } },
      },
      action: 'request',
      // A private address: had the request been sent, it would fail differently.
      input: { url: 'http://127.0.0.1:9/' },
      idempotencyKey: 'k',
      timeoutMs: 1_000,
    });
    await expect(attempt).rejects.toThrow(/names no origins.*nothing was sent.*owner or admin/s);
  });
});
