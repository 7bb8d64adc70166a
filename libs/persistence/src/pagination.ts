import { DEFAULT_PAGE_SIZE, DomainException, type Page } from '#common';

import { isId } from './id.util.js';

export interface PageRequest {
  cursor?: string;
  limit?: number;
}

const CURSOR_VERSION = 1;

export function encodeCursor(lastId: string): string {
  return Buffer.from(JSON.stringify({ v: CURSOR_VERSION, id: lastId })).toString('base64url');
}

/** Reads a cursor this API handed out; anything else is the caller's mistake, not a server fault. */
export function decodeCursor(cursor: string): string {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      typeof parsed === 'object' &&
      parsed !== null &&
      (parsed as { v?: unknown }).v === CURSOR_VERSION &&
      typeof (parsed as { id?: unknown }).id === 'string' &&
      isId((parsed as { id: string }).id)
    ) {
      return (parsed as { id: string }).id;
    }
  } catch {
    // fall through to the shared answer
  }
  throw DomainException.invalidRequest([
    { path: 'cursor', message: 'cursor is not a cursor this API returned' },
  ]);
}

/**
 * Keyset pagination, newest first, on time-ordered ids (rows created between two pages sort before
 * the cursor, so no row is skipped or repeated), for a query the caller builds: `fetch` gets the id the page starts after (none on
 * the first page) and how many rows to read (one more than the page holds, which says whether another
 * page follows), and answers the rows in page order.
 */
export async function keysetPage<T extends { id: string }>(
  request: PageRequest,
  fetch: (window: { after: string | undefined; limit: number }) => Promise<T[]>,
): Promise<Page<T>> {
  const limit = request.limit ?? DEFAULT_PAGE_SIZE;
  const after = request.cursor === undefined ? undefined : decodeCursor(request.cursor);
  const rows = await fetch({ after, limit: limit + 1 });
  const data = rows.slice(0, limit);
  const last = data.at(-1);
  return { data, nextCursor: rows.length > limit && last ? encodeCursor(last.id) : null };
}

export function mapPage<T, U>(page: Page<T>, map: (item: T) => U): Page<U> {
  return { data: page.data.map(map), nextCursor: page.nextCursor };
}
