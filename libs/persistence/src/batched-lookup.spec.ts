import { BatchedLookup } from './batched-lookup.js';

/** A look-up whose statements are held until the test lets them answer, each key answered as `v<key>`. */
function heldLookup() {
  const batches: number[][] = [];
  const releases: Array<() => void> = [];
  const lookup = async (keys: readonly number[]) => {
    batches.push([...keys]);
    await new Promise<void>((resolve) => releases.push(resolve));
    if (keys.includes(-1)) throw new Error('the statement failed');
    return keys.map((key) => (key === 0 ? null : `v${key}`));
  };
  const releaseNext = async () => {
    while (releases.length === 0) await new Promise((resolve) => setImmediate(resolve));
    releases.shift()!();
  };
  return { batches, lookup, releaseNext };
}

describe('BatchedLookup', () => {
  it('answers the look-ups of one turn from one statement, each its own value, in any order', async () => {
    const { batches, lookup, releaseNext } = heldLookup();
    const reader = new BatchedLookup(lookup, { concurrency: 2, maxBatchSize: 100 });
    const answers = Promise.all([3, 1, 0, 3].map((key) => reader.load(key)));
    await releaseNext();
    await expect(answers).resolves.toEqual(['v3', 'v1', null, 'v3']);
    expect(batches).toEqual([[3, 1, 0, 3]]);
  });

  it('sends each look-up at once while a statement is free, and holds the rest for the next', async () => {
    const { batches, lookup, releaseNext } = heldLookup();
    const reader = new BatchedLookup(lookup, { concurrency: 1, maxBatchSize: 100 });
    const first = reader.load(1);
    await new Promise((resolve) => setImmediate(resolve));
    // The first statement is in flight: these wait for it, then leave together.
    const later = [reader.load(2), reader.load(3)];
    await new Promise((resolve) => setImmediate(resolve));
    const more = reader.load(4);
    expect(batches).toEqual([[1]]);
    await releaseNext();
    await expect(first).resolves.toBe('v1');
    await releaseNext();
    await expect(Promise.all([...later, more])).resolves.toEqual(['v2', 'v3', 'v4']);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('fails only the look-ups of a failed statement, and goes on with the next', async () => {
    const { batches, lookup, releaseNext } = heldLookup();
    const reader = new BatchedLookup(lookup, { concurrency: 1, maxBatchSize: 100 });
    const failed = [reader.load(-1), reader.load(5)];
    await new Promise((resolve) => setImmediate(resolve));
    const next = reader.load(6);
    await releaseNext();
    await expect(failed[0]).rejects.toThrow('the statement failed');
    await expect(failed[1]).rejects.toThrow('the statement failed');
    await releaseNext();
    await expect(next).resolves.toBe('v6');
    expect(batches).toEqual([[-1, 5], [6]]);
  });

  it('splits a burst larger than a statement may carry', async () => {
    const { batches, lookup, releaseNext } = heldLookup();
    const reader = new BatchedLookup(lookup, { concurrency: 4, maxBatchSize: 2 });
    const answers = Promise.all([1, 2, 3, 4, 5].map((key) => reader.load(key)));
    for (let statement = 0; statement < 3; statement += 1) await releaseNext();
    await expect(answers).resolves.toEqual(['v1', 'v2', 'v3', 'v4', 'v5']);
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });
});
