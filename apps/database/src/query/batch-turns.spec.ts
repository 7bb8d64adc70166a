import { DomainException } from '#common';

import { BatchTurns } from './batch-turns.js';

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainException) return error.code;
    throw error;
  }
  return 'taken';
}

describe('BatchTurns', () => {
  const later = () => Date.now() + 60_000;

  it('runs an organization two at a time and lets the third wait its turn, first come first served', async () => {
    const turns = new BatchTurns(2, 5);
    const first = await turns.take('a', later());
    await turns.take('a', later());
    const order: string[] = [];
    const third = turns.take('a', later()).then((end) => (order.push('third'), end));
    const fourth = turns.take('a', later()).then((end) => (order.push('fourth'), end));
    // Another organization is not held up by the first.
    await turns.take('b', later());
    expect(order).toEqual([]);
    first();
    (await third)();
    await fourth;
    expect(order).toEqual(['third', 'fourth']);
  });

  it('refuses at once past the waiting room, and a waiter past its deadline gives up', async () => {
    const turns = new BatchTurns(1, 1);
    const end = await turns.take('a', later());
    const waiter = turns.take('a', Date.now() + 50);
    expect(await codeOf(turns.take('a', later()))).toBe('rate_limited');
    expect(await codeOf(waiter)).toBe('service_unavailable');
    end();
    // The turn came back: the next batch runs at once.
    expect(await codeOf(turns.take('a', Date.now() + 50))).toBe('taken');
  });

  it('runs a batch at once while a turn is free, even with no waiting room', async () => {
    const turns = new BatchTurns(1, 0);
    const end = await turns.take('a', later());
    expect(await codeOf(turns.take('a', later()))).toBe('rate_limited');
    end();
    expect(await codeOf(turns.take('a', later()))).toBe('taken');
  });
});
