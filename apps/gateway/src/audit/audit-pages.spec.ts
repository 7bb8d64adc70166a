import type { AuditEntryDto } from '#contracts';

import { decodeAuditCursor, encodeAuditCursor, mergeAuditPages } from './audit-pages.js';

const entry = (at: string, id: string): AuditEntryDto => ({
  id,
  at,
  actor: { type: 'service', id: null },
  action: 'thing.changed',
  resource: { type: 'thing', id, name: null },
  details: {},
  clientAddress: null,
  userAgent: null,
  requestId: null,
});

const uuid = (n: number) => `00000000-0000-7000-8000-${n.toString().padStart(12, '0')}`;

/** Pages one service would answer: its entries after the position, newest first, up to `limit`. */
function serviceAnswer(
  entries: AuditEntryDto[],
  after: { at: string; id: string } | undefined,
  limit: number,
) {
  return entries
    .filter((e) => after === undefined || e.at < after.at || (e.at === after.at && e.id < after.id))
    .sort((a, b) => (a.at === b.at ? (a.id < b.id ? 1 : -1) : a.at < b.at ? 1 : -1))
    .slice(0, limit);
}

describe('mergeAuditPages', () => {
  // Three services, with entries at the same millisecond in different services.
  const services = [
    [entry('2026-11-27T10:00:00.000Z', uuid(1)), entry('2026-11-27T10:00:02.000Z', uuid(4))],
    [entry('2026-11-27T10:00:00.000Z', uuid(2)), entry('2026-11-27T10:00:01.000Z', uuid(3))],
    [entry('2026-11-27T10:00:02.000Z', uuid(5)), entry('2026-11-27T09:59:59.999Z', uuid(0))],
  ];
  const all = services.flat();
  const newestFirst = serviceAnswer(all, undefined, 100).map((e) => e.id);

  it.each([1, 2, 3, 5, 6, 10])('pages of %i cover every entry once, newest first', (limit) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const after = cursor === null ? undefined : decodeAuditCursor(cursor);
      const page = mergeAuditPages(
        services.map((entries) => serviceAnswer(entries, after, limit + 1)),
        limit,
      );
      expect(page.data.length).toBeLessThanOrEqual(limit);
      seen.push(...page.data.map((e) => e.id));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== null && pages < 20);
    expect(seen).toEqual(newestFirst);
    expect(pages).toBe(Math.max(1, Math.ceil(all.length / limit)));
  });

  it('has no next page when the services had nothing more', () => {
    expect(mergeAuditPages([[entry('2026-11-27T10:00:00.000Z', uuid(1))], []], 1).nextCursor).toBeNull();
    expect(mergeAuditPages([[], []], 20)).toEqual({ data: [], nextCursor: null });
  });

  it('refuses a cursor it did not hand out', () => {
    const good = encodeAuditCursor(entry('2026-11-27T10:00:00.000Z', uuid(1)));
    expect(decodeAuditCursor(good)).toEqual({ at: '2026-11-27T10:00:00.000Z', id: uuid(1) });
    for (const bad of [
      'garbage',
      Buffer.from(JSON.stringify({ v: 1, at: 'yesterday', id: uuid(1) })).toString('base64url'),
      Buffer.from(JSON.stringify({ v: 1, at: '2026-11-27T10:00:00.000Z', id: 'x' })).toString('base64url'),
      Buffer.from(JSON.stringify({ v: 2, at: '2026-11-27T10:00:00.000Z', id: uuid(1) })).toString(
        'base64url',
      ),
    ]) {
      expect(() => decodeAuditCursor(bad)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    }
  });
});
