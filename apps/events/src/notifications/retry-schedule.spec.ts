import { retryDelayMs } from './retry-schedule.js';

describe('retryDelayMs', () => {
  const schedule = { maxAttempts: 10, baseMs: 180_000, maxDelayMs: 10 * 3_600_000 };
  const middle = () => 0.5;

  it('doubles from the base, stops at the cap, and gives up after the last attempt', () => {
    const minutes = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((attempt) => {
      const delay = retryDelayMs(attempt, schedule, middle);
      return delay === null ? null : delay / 60_000;
    });
    expect(minutes).toEqual([3, 6, 12, 24, 48, 96, 192, 384, 600, null]);
    // What docs/notifications.md says of the defaults: the last attempt about 22¾ hours after the first.
    const total = minutes.reduce<number>((sum, wait) => sum + (wait ?? 0), 0);
    expect(total / 60).toBeCloseTo(22.75, 2);
  });

  it('spreads each wait by at most ten per cent either way', () => {
    expect(retryDelayMs(1, schedule, () => 0)).toBe(162_000);
    expect(retryDelayMs(1, schedule, () => 0.999_999)).toBe(198_000);
    expect(retryDelayMs(12, schedule, middle)).toBeNull();
  });
});
