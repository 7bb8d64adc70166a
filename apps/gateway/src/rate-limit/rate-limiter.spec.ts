import type { RateLimitConsume, RateLimitTotals } from '#contracts';

import { RateLimiter, WINDOW_MS } from './rate-limiter.js';

/** A shared store as catalog keeps it: totals per bucket and window. */
class SharedStore {
  readonly totals = new Map<string, number>();
  calls = 0;

  consume = async ({ windowStart, hits }: RateLimitConsume): Promise<RateLimitTotals> => {
    this.calls += 1;
    return {
      totals: hits.map(({ bucket, count }) => {
        const key = `${windowStart}:${bucket}`;
        const total = (this.totals.get(key) ?? 0) + count;
        this.totals.set(key, total);
        return { bucket, count: total };
      }),
    };
  };
}

describe('RateLimiter', () => {
  let now = WINDOW_MS * 10 + 1_000;
  const clock = () => now;
  const limiters: RateLimiter[] = [];
  const make = (limit: number, store: SharedStore) => {
    const limiter = new RateLimiter(limit, store.consume, clock);
    limiters.push(limiter);
    return limiter;
  };

  afterEach(() => limiters.splice(0).forEach((limiter) => limiter.stop()));

  it('admits up to the limit, then refuses with the seconds until the window resets', async () => {
    const limiter = make(3, new SharedStore());
    const verdicts = [];
    for (let index = 0; index < 4; index += 1) verdicts.push(await limiter.hit('key:a'));
    expect(verdicts.map((verdict) => [verdict.allowed, verdict.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(verdicts[3]?.resetSeconds).toBe((WINDOW_MS - 1_000) / 1000);
  });

  it('keeps buckets apart', async () => {
    const limiter = make(1, new SharedStore());
    expect((await limiter.hit('key:a')).allowed).toBe(true);
    expect((await limiter.hit('key:b')).allowed).toBe(true);
    expect((await limiter.hit('key:a')).allowed).toBe(false);
  });

  it('shares one count between replicas through the store', async () => {
    const store = new SharedStore();
    const first = make(5, store);
    const second = make(5, store);
    for (let index = 0; index < 4; index += 1) await first.hit('key:a');
    await first.flush();
    expect((await second.hit('key:a')).remaining).toBe(0);
    expect((await second.hit('key:a')).allowed).toBe(false);
    await second.flush();
    // The first replica has no hits of its own to send; its next flush still learns the total.
    await first.flush();
    expect((await first.hit('key:a')).allowed).toBe(false);
  });

  it('starts a new window at the hour', async () => {
    const limiter = make(1, new SharedStore());
    expect((await limiter.hit('key:a')).allowed).toBe(true);
    expect((await limiter.hit('key:a')).allowed).toBe(false);
    now += WINDOW_MS;
    expect((await limiter.hit('key:a')).allowed).toBe(true);
  });

  it('batches later hits into one store call per flush', async () => {
    const store = new SharedStore();
    const limiter = make(100, store);
    await limiter.hit('key:a');
    for (let index = 0; index < 20; index += 1) await limiter.hit('key:a');
    expect(store.calls).toBe(1);
    await limiter.flush();
    expect(store.calls).toBe(2);
    expect([...store.totals.values()]).toEqual([21]);
  });
});
