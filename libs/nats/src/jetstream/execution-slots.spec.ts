import { ExecutionSlots } from './execution-slots.js';

describe('ExecutionSlots', () => {
  it('hands out free slots only, and wakes a waiter when one is released', async () => {
    const slots = new ExecutionSlots(2);
    expect([slots.tryTake(), slots.tryTake(), slots.tryTake()]).toEqual([true, true, false]);
    expect(slots.free).toBe(0);
    let woken = false;
    const waiting = slots.whenFree().then(() => (woken = true));
    await Promise.resolve();
    expect(woken).toBe(false);
    slots.release();
    await waiting;
    expect(woken).toBe(true);
    expect(slots.free).toBe(1);
  });

  it('lets a delivered job take a slot past the limit', () => {
    const slots = new ExecutionSlots(1);
    expect(slots.tryTake()).toBe(true);
    slots.take();
    expect([slots.busy, slots.free]).toEqual([2, 0]);
    slots.release();
    slots.release();
    expect(slots.free).toBe(1);
  });
});
