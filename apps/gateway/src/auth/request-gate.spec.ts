import type { Principal, RateLimitConsume, RateLimitTotals, ResolvedCredential } from '#contracts';
import type { FastifyReply } from 'fastify';

import { RateLimiter } from '../rate-limit/rate-limiter.js';
import { CredentialCache } from './credential-cache.js';
import type { AuthenticatedRequest } from './principal.decorator.js';
import { RequestGate } from './request-gate.js';

/** Catalog's store of counts, in memory: totals per bucket and window. */
function store() {
  const totals = new Map<string, number>();
  const consume = async ({ windowStart, hits }: RateLimitConsume): Promise<RateLimitTotals> => ({
    totals: hits.map(({ bucket, count }) => {
      const key = `${windowStart}:${bucket}`;
      totals.set(key, (totals.get(key) ?? 0) + count);
      return { bucket, count: totals.get(key)! };
    }),
  });
  const countOf = (bucket: string) =>
    [...totals].filter(([key]) => key.endsWith(`:${bucket}`)).reduce((sum, [, count]) => sum + count, 0);
  return { consume, countOf };
}

const principal = (keyId: string): Principal => ({
  organizationId: 'org-1',
  userId: null,
  keyId,
  role: 'admin',
});

describe('RequestGate', () => {
  const limiters: RateLimiter[] = [];
  afterEach(() => limiters.splice(0).forEach((limiter) => limiter.stop()));

  function gate(credentialLimit: number, refusedLimit = 100) {
    const counts = store();
    const limiter = (limit: number) => {
      const made = new RateLimiter(limit, counts.consume);
      limiters.push(made);
      return made;
    };
    const lookups: string[] = [];
    const credentials = new CredentialCache(60_000, async (token): Promise<ResolvedCredential> => {
      lookups.push(token);
      return token.startsWith('fm_good')
        ? { kind: 'principal', principal: principal(token) }
        : { kind: 'unauthorized' };
    });
    const limits = {
      credential: limiter(credentialLimit),
      organization: limiter(1_000),
      address: { auth: limiter(100), hooks: limiter(100) },
      refused: limiter(refusedLimit),
    };
    const admit = (token: string) => {
      const request = {
        method: 'GET',
        ip: '192.0.2.1',
        headers: { authorization: `Bearer ${token}` },
        routeOptions: { config: {} },
      } as unknown as AuthenticatedRequest;
      const reply = { header: () => reply } as unknown as FastifyReply;
      return new RequestGate(credentials, limits, 'https://flows.example.com').admit(request, reply).then(
        () => 'admitted',
        (error: { code?: string }) => error.code,
      );
    };
    return { admit, lookups, countOf: counts.countOf };
  }

  it("spends none of the organization's budget on a credential past its own", async () => {
    const { admit, countOf } = gate(2);
    const answers = [];
    for (let index = 0; index < 5; index += 1) answers.push(await admit('fm_good-a'));
    expect(answers).toEqual(['admitted', 'admitted', 'rate_limited', 'rate_limited', 'rate_limited']);
    expect(countOf('org:org-1')).toBeLessThanOrEqual(2);
  });

  it('keeps serving a credential known to be valid from an address past its refusals, and asks nothing more', async () => {
    const { admit, lookups } = gate(100, 2);
    expect(await admit('fm_good-b')).toBe('admitted');
    expect([await admit('fm_bad-1'), await admit('fm_bad-2'), await admit('fm_bad-3')]).toEqual([
      'unauthorized',
      'unauthorized',
      'rate_limited',
    ]);
    const asked = lookups.length;
    expect(await admit('fm_bad-4')).toBe('rate_limited');
    expect(await admit('fm_good-unseen')).toBe('rate_limited');
    expect(lookups.length).toBe(asked);
    expect(await admit('fm_good-b')).toBe('admitted');
  });
});
