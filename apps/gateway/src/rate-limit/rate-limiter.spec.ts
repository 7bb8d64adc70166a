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

/**
 * A store that answers only when the test says, so the test decides which of two requests in flight
 * is answered first. A request is applied when it is answered, as catalog's one statement commits
 * just before it replies; a failed one applies nothing.
 */
class HeldStore {
  readonly totals = new Map<string, number>();
  /** Every count any request carried, in order. */
  readonly sent: number[] = [];
  private readonly held: Array<{
    hits: RateLimitConsume['hits'];
    resolve: (totals: RateLimitTotals) => void;
    reject: (error: Error) => void;
  }> = [];

  consume = ({ hits }: RateLimitConsume): Promise<RateLimitTotals> => {
    this.sent.push(...hits.map(({ count }) => count));
    return new Promise((resolve, reject) => this.held.push({ hits, resolve, reject }));
  };

  get waiting(): number {
    return this.held.length;
  }

  /** Answers the request at `index` among those still held (0: the oldest). */
  answer(index = 0): void {
    const { hits, resolve } = this.held.splice(index, 1)[0]!;
    const totals = hits.map(({ bucket, count }) => {
      const total = (this.totals.get(bucket) ?? 0) + count;
      this.totals.set(bucket, total);
      return { bucket, count: total };
    });
    resolve({ totals });
  }

  fail(): void {
    this.held.shift()!.reject(new Error('store unavailable'));
  }
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

  it('counts in windows of the length it is given', async () => {
    const minute = 60_000;
    const limiter = new RateLimiter(1, new SharedStore().consume, clock, minute);
    limiters.push(limiter);
    const first = await limiter.hit('auth:192.0.2.1');
    expect(first).toMatchObject({ allowed: true, windowSeconds: 60 });
    expect(first.resetSeconds).toBe((minute - (now % minute)) / 1000);
    expect((await limiter.hit('auth:192.0.2.1')).allowed).toBe(false);
    now += minute;
    expect((await limiter.hit('auth:192.0.2.1')).allowed).toBe(true);
  });

  it('tells whether a bucket is past its limit without counting a hit', async () => {
    const limiter = make(2, new SharedStore());
    expect(limiter.exceeded('refused:a')).toBe(false);
    for (let index = 0; index < 2; index += 1) await limiter.hit('refused:a');
    expect(limiter.exceeded('refused:a')).toBe(false);
    expect((await limiter.hit('refused:a')).allowed).toBe(false);
    expect(limiter.exceeded('refused:a')).toBe(true);
    expect(limiter.exceeded('refused:b')).toBe(false);
    now += WINDOW_MS;
    expect(limiter.exceeded('refused:a')).toBe(false);
  });

  it('shares the hits of a busy bucket at once, without waiting for the next flush', async () => {
    const store = new SharedStore();
    const limiter = make(100, store);
    await limiter.hit('key:busy');
    await limiter.hit('key:busy');
    // The first hit went with its own request; one unsent hit is under a fiftieth of 100.
    expect(store.calls).toBe(1);
    await limiter.hit('key:busy');
    // Two are not: the flush is sent with the hit, before any timer could.
    expect(store.calls).toBe(2);
    expect(store.totals.get(`${Math.floor(now / WINDOW_MS) * WINDOW_MS}:key:busy`)).toBe(3);
  });

  it('takes its unsent hits to the store with the first hit it decides there', async () => {
    const store = new SharedStore();
    const limiter = make(1_000, store);
    // Every flush is one the test starts (the timer and the early flushes of a busy bucket stop too).
    limiter.stop();
    const windowStart = Math.floor(now / WINDOW_MS) * WINDOW_MS;
    await limiter.hit('key:edge');
    await store.consume({ windowStart, hits: [{ bucket: 'key:edge', count: 880 }] });
    await limiter.flush();
    // 881 known: 19 more are decided here and not sent; the 20th is in the last tenth, at the store.
    for (let index = 0; index < 20; index += 1) await limiter.hit('key:edge');
    expect(store.totals.get(`${windowStart}:key:edge`)).toBe(901);
  });

  /** The limiter with its timer stopped, so every flush is one the test starts. */
  const heldLimiter = (limit: number, store: HeldStore) => {
    const limiter = new RateLimiter(limit, store.consume, clock);
    limiter.stop();
    return limiter;
  };

  it.each([
    ['the first hit', [0, 0]],
    ['the flush', [1, 0]],
  ])(
    'never sends a negative count when a flush races the first hit of a key, %s answered first',
    async (_label, order) => {
      const store = new HeldStore();
      const limiter = heldLimiter(10, store);
      // Another key is in use, so the flush has a request of its own to make.
      const other = limiter.hit('key:b');
      store.answer();
      await other;

      const first = limiter.hit('key:a');
      const flush = limiter.flush();
      for (const index of order) store.answer(index);
      expect(await first).toMatchObject({ allowed: true, remaining: 9 });
      await flush;
      expect(store.totals.get('key:a')).toBe(1);

      // The flush after the race has nothing of key:a's to send, and above all nothing to take back.
      const settled = limiter.flush();
      store.answer();
      await settled;
      expect(store.sent.filter((count) => count < 0)).toEqual([]);
      expect(store.totals.get('key:a')).toBe(1);

      expect((await limiter.hit('key:a')).remaining).toBe(8);
      const last = limiter.flush();
      store.answer();
      await last;
      expect(store.waiting).toBe(0);
      expect(store.totals).toEqual(
        new Map([
          ['key:b', 1],
          ['key:a', 2],
        ]),
      );
      expect(store.sent.filter((count) => count < 0)).toEqual([]);
    },
  );

  it('sends the first hit with the next flush when its own request failed', async () => {
    const store = new HeldStore();
    const limiter = heldLimiter(10, store);
    const first = limiter.hit('key:a');
    store.fail();
    // Failing open: the hit is admitted and counted here.
    expect(await first).toMatchObject({ allowed: true, remaining: 9 });

    const flush = limiter.flush();
    store.answer();
    await flush;
    expect(store.totals.get('key:a')).toBe(1);
    expect(store.sent).toEqual([1, 1]);
    expect((await limiter.hit('key:a')).remaining).toBe(8);
  });

  it('batches later hits into one store call per flush', async () => {
    const store = new SharedStore();
    // 20 unsent hits are well under a fiftieth of the limit: they wait for the flush.
    const limiter = make(10_000, store);
    await limiter.hit('key:a');
    for (let index = 0; index < 20; index += 1) await limiter.hit('key:a');
    expect(store.calls).toBe(1);
    await limiter.flush();
    expect(store.calls).toBe(2);
    expect([...store.totals.values()]).toEqual([21]);
  });

  it('lets replicas together admit no more than the limit: the store decides its last tenth', async () => {
    const store = new SharedStore();
    const replicas = [make(100, store), make(100, store), make(100, store)];
    let allowed = 0;
    // Between two flushes the replicas take 9 hits together, fewer than a tenth of the limit.
    for (let interval = 0; interval < 20; interval += 1) {
      for (let hit = 0; hit < 3; hit += 1) {
        for (const replica of replicas) if ((await replica.hit('key:a')).allowed) allowed += 1;
      }
      for (const replica of replicas) await replica.flush();
    }
    expect(allowed).toBe(100);
  });
});
