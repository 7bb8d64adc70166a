import { DEFAULT_PAGE_SIZE, type Page } from '#common';
import { decodeCursor, encodeCursor, type PageRequest } from '#persistence';

/**
 * Keyset pagination, newest first, on time-ordered ids: rows created between two pages sort before
 * the cursor, so no row is skipped or repeated. `fetch` gets the id the page starts after (none on the
 * first page) and how many rows to read (one more than the page holds, which says whether another
 * page follows), and answers the rows highest id first.
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
