import { DomainException, type Page } from '#common';
import type { AuditEntryDto, AuditPosition } from '#contracts';

const CURSOR_VERSION = 1;

/** Newest first by (at, id): the order every service answers in, and the page's. */
export function newestFirst(a: AuditEntryDto, b: AuditEntryDto): number {
  if (a.at !== b.at) return a.at < b.at ? 1 : -1;
  if (a.id !== b.id) return a.id < b.id ? 1 : -1;
  return 0;
}

export function encodeAuditCursor(entry: AuditEntryDto): string {
  return Buffer.from(JSON.stringify({ v: CURSOR_VERSION, at: entry.at, id: entry.id })).toString('base64url');
}

/**
 * The position a cursor this route handed out stands for: the (at, id) of the last entry of the
 * previous page. Anything else is the caller's mistake.
 */
export function decodeAuditCursor(cursor: string): AuditPosition {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
    const { v, at, id } = parsed;
    if (
      v === CURSOR_VERSION &&
      typeof at === 'string' &&
      !Number.isNaN(Date.parse(at)) &&
      new Date(at).toISOString() === at &&
      typeof id === 'string' &&
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id)
    ) {
      return { at, id };
    }
  } catch {
    // fall through to the shared answer
  }
  throw DomainException.invalidRequest([
    { path: 'cursor', message: 'cursor is not a cursor this API returned' },
  ]);
}

/**
 * One page out of the services' pages. Each service answered up to `limit + 1` of its entries after
 * the cursor, newest first; merged, the first `limit` are the page, and a next page exists exactly
 * when more than `limit` came back (a service with more held at least one beyond what it sent). The
 * cursor is the page's last (at, id), so the next page starts right after it in every service: no
 * entry is skipped or repeated.
 */
export function mergeAuditPages(pages: readonly AuditEntryDto[][], limit: number): Page<AuditEntryDto> {
  const merged = pages.flat().sort(newestFirst);
  const data = merged.slice(0, limit);
  const last = data.at(-1);
  return { data, nextCursor: merged.length > limit && last ? encodeAuditCursor(last) : null };
}
