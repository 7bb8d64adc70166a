import { mapConcurrently } from './concurrency.util.js';

describe('mapConcurrently', () => {
  it('answers in the order of the items, never running more than the limit at once', async () => {
    let running = 0;
    let most = 0;
    const results = await mapConcurrently([5, 1, 4, 2, 3, 0, 6], 3, async (value, index) => {
      running += 1;
      most = Math.max(most, running);
      // Each task ends after a number of turns of its own, so they finish out of order.
      for (let turn = 0; turn < value; turn++) await Promise.resolve();
      running -= 1;
      return `${index}:${value}`;
    });
    expect(results).toEqual(['0:5', '1:1', '2:4', '3:2', '4:3', '5:0', '6:6']);
    expect(most).toBe(3);
  });

  it('starts the next item as soon as one ends, not when a batch has', async () => {
    const started: number[] = [];
    let releaseSlow!: () => void;
    const slow = new Promise<void>((resolve) => (releaseSlow = resolve));
    const all = mapConcurrently([0, 1, 2, 3], 2, async (item) => {
      started.push(item);
      if (item === 0) await slow;
    });
    for (let turn = 0; turn < 10; turn++) await Promise.resolve();
    // Item 0 still runs; items 1, 2 and 3 went through the other slot one after another.
    expect(started).toEqual([0, 1, 2, 3]);
    releaseSlow();
    await all;
  });

  it('rejects with the first failure, and answers nothing for no items', async () => {
    await expect(
      mapConcurrently([1, 2], 2, async (item) => {
        if (item === 2) throw new Error('two failed');
        return item;
      }),
    ).rejects.toThrow('two failed');
    expect(await mapConcurrently([], 4, async () => 1)).toEqual([]);
  });
});
