import 'reflect-metadata';

import { MalformedMessageException, readPrincipal } from './message-validation.js';

describe('readPrincipal', () => {
  const principal = { organizationId: 'org-1', userId: 'user-1', keyId: null, role: 'member' };

  it('answers the same four fields whether the principal was checked before or not', () => {
    const first = readPrincipal('s', { ...principal });
    const again = readPrincipal('s', { ...principal, extra: 'dropped' });
    expect({ ...first }).toEqual(principal);
    expect(again).toEqual(principal);
  });

  it('refuses a principal that differs from a valid one in a single field', () => {
    readPrincipal('s', principal);
    for (const broken of [
      { ...principal, role: 'superuser' },
      { ...principal, keyId: 7 },
      { ...principal, userId: undefined },
      { ...principal, organizationId: 'o'.repeat(10_000) },
    ]) {
      expect(() => readPrincipal('s', broken)).toThrow(MalformedMessageException);
      // Refused every time, not only before it was seen.
      expect(() => readPrincipal('s', broken)).toThrow(MalformedMessageException);
    }
  });

  it('refuses what is not an object', () => {
    expect(() => readPrincipal('s', null)).toThrow(MalformedMessageException);
    expect(() => readPrincipal('s', JSON.stringify(principal))).toThrow(MalformedMessageException);
  });
});
