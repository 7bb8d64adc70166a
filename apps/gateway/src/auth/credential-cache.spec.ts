import type { ResolvedCredential } from '#contracts';

import { CredentialCache } from './credential-cache.js';

const member = (userId: string): ResolvedCredential => ({
  kind: 'principal',
  principal: { organizationId: 'org', userId, keyId: null, role: 'member' },
});
const key = (keyId: string): ResolvedCredential => ({
  kind: 'principal',
  principal: { organizationId: 'org', userId: null, keyId, role: 'admin' },
});

describe('CredentialCache', () => {
  function cacheOf(answers: Record<string, ResolvedCredential>) {
    const lookups: string[] = [];
    const cache = new CredentialCache(60_000, async (token) => {
      lookups.push(token);
      return answers[token] ?? { kind: 'unauthorized' };
    });
    return { cache, lookups };
  }

  it('forgets only the credentials of the users and keys named, and every refusal', async () => {
    const { cache, lookups } = cacheOf({
      ann: member('u-ann'),
      bob: member('u-bob'),
      k1: key('k-1'),
      k2: key('k-2'),
    });
    for (const token of ['ann', 'bob', 'k1', 'k2', 'guess']) await cache.get(token);
    cache.forget({ userIds: ['u-ann'], keyIds: ['k-2'] });
    lookups.length = 0;
    for (const token of ['ann', 'bob', 'k1', 'k2', 'guess']) await cache.get(token);
    expect(lookups).toEqual(['ann', 'k2', 'guess']);
    expect(cache.knownValid('bob')).toBe(true);
  });

  it('forgets everything when told all', async () => {
    const { cache, lookups } = cacheOf({ ann: member('u-ann'), k1: key('k-1') });
    await cache.get('ann');
    await cache.get('k1');
    cache.forget({ all: true });
    expect(cache.knownValid('ann')).toBe(false);
    await cache.get('k1');
    expect(lookups).toEqual(['ann', 'k1', 'k1']);
  });
});
