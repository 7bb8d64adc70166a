/**
 * Calls `task` for every item, at most `limit` at a time (a new one starts as soon as one ends, not
 * when a whole batch has), and answers the results in the items' order. The first failure rejects;
 * tasks already started run to their end.
 */
export async function mapConcurrently<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
