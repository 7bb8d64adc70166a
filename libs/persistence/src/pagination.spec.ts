import { DomainException } from '#common';

import { newId } from './id.util.js';
import { decodeCursor, encodeCursor } from './pagination.js';

describe('cursor', () => {
  it('round-trips the last id of a page', () => {
    const id = newId();
    expect(decodeCursor(encodeCursor(id))).toBe(id);
  });

  it.each([
    '',
    'garbage',
    Buffer.from('{"v":1,"id":"not-a-uuid"}').toString('base64url'),
    Buffer.from('{"v":2}').toString('base64url'),
  ])('refuses %p with invalid_request', (cursor) => {
    expect(() => decodeCursor(cursor)).toThrow(DomainException);
    try {
      decodeCursor(cursor);
    } catch (error) {
      expect((error as DomainException).code).toBe('invalid_request');
      expect((error as DomainException).details).toEqual({
        issues: [{ path: 'cursor', message: expect.any(String) }],
      });
    }
  });

  it('makes ids that sort in creation order', () => {
    const ids = Array.from({ length: 50 }, () => newId());
    expect([...ids].sort()).toEqual(ids);
  });
});
