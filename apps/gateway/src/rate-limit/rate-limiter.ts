import { createLogger } from '#common';
import type { RateLimitConsume, RateLimitTotals } from '#contracts';

export const WINDOW_MS = 3_600_000;
const FLUSH_INTERVAL_MS = 200;
/** Buckets used this recently are refreshed on every flush, even with no hits of their own to send. */
const ACTIVE_MS = 60_000;

export interface RateLimitVerdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  windowSeconds: number;
}

interface BucketState {
  windowStart: number;
  /** The shared total as of this gateway's last exchange with the store, other gateways included. */
  known: number;
  /**
   * Hits counted here and not yet sent. Only the flush that sent them takes them off, so it is never
   * negative; the first hit is not among them while its own request carries it.
   */
  pending: number;
  /** Of the pending hits, those a request to the store is carrying now: no other request sends them. */
  sending: number;
  lastHitAt: number;
  /** The first hit's request to the store. Until it settles, a flush leaves the bucket alone. */
  firstSync: Promise<void>;
  syncing: boolean;
}

export type ConsumeHits = (request: RateLimitConsume) => Promise<RateLimitTotals>;

/**
 * A fixed one-hour window per bucket, shared by every gateway replica through catalog. The first hit
 * of a bucket in a window waits for the shared total, so a restarted or new replica starts from the
 * truth; later hits are decided locally and sent in batches every 200 ms, which keeps the store off
 * the request path, until the last tenth of the budget, whose hits the store decides one by one. Each
 * flush also brings back the shared totals. A bucket busy enough to count a fiftieth of its limit
 * between two flushes is flushed at once rather than at the next tick, so what one replica has
 * admitted and the others do not know of stays small however fast the hits come: replicas together
 * overshoot the limit only when they take a tenth of it within one round trip to the store.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, BucketState>();
  private readonly timer: NodeJS.Timeout;
  private flushing = false;
  private stopped = false;
  private readonly exactMargin: number;
  /** Unsent hits of one bucket after which it is flushed without waiting for the timer. */
  private readonly flushAfter: number;
  private readonly logger = createLogger('gateway');

  constructor(
    readonly limit: number,
    private readonly consume: ConsumeHits,
    private readonly now: () => number = Date.now,
    readonly windowMs: number = WINDOW_MS,
  ) {
    this.exactMargin = Math.ceil(limit / 10);
    this.flushAfter = Math.ceil(limit / 50);
    this.timer = setInterval(() => void this.flush(), FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  /** No flush happens on its own after this; `flush()` still sends what is left. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  async hit(bucket: string): Promise<RateLimitVerdict> {
    const now = this.now();
    const windowStart = this.windowStartAt(now);
    let state = this.buckets.get(bucket);
    if (!state || state.windowStart !== windowStart) {
      state = this.startBucket(bucket, windowStart);
      await state.firstSync;
    } else {
      await state.firstSync;
      state.lastHitAt = now;
      if (this.nearTheEdge(state)) return this.hitAtStore(bucket, state, now);
      state.pending += 1;
      if (state.pending >= this.flushAfter && !this.stopped) void this.flush();
    }
    state.lastHitAt = now;
    return this.verdict(state.known + state.pending, windowStart, now);
  }

  /**
   * Whether the bucket is known to be past its limit, without counting a hit: a check before work
   * that is counted only when it fails (a refused credential). It knows what this replica counted
   * and what the last exchange with the store brought back.
   */
  exceeded(bucket: string): boolean {
    const state = this.buckets.get(bucket);
    return state?.windowStart === this.windowStartAt(this.now()) && state.known + state.pending > this.limit;
  }

  private windowStartAt(now: number): number {
    return Math.floor(now / this.windowMs) * this.windowMs;
  }

  /**
   * The last tenth of a bucket's budget is decided by the store, one hit at a time, so that replicas
   * deciding locally cannot together admit more than the limit: they could only by each admitting,
   * between two flushes, hits the others do not know of yet. Once the shared total is past the
   * limit, refusing needs no store, since within a window the total only grows.
   */
  private nearTheEdge(state: BucketState): boolean {
    return state.known <= this.limit && state.known + state.pending + 1 > this.limit - this.exactMargin;
  }

  /**
   * Takes the hit to the store with every hit of the bucket this replica has not sent yet: near the
   * edge the store's total must be all that was admitted, or another replica deciding there would
   * admit what this one already did.
   */
  private async hitAtStore(bucket: string, state: BucketState, now: number): Promise<RateLimitVerdict> {
    const unsent = state.pending - state.sending;
    state.sending += unsent;
    try {
      const { totals } = await this.consume({
        windowStart: state.windowStart,
        hits: [{ bucket, count: 1 + unsent }],
      });
      state.pending -= unsent;
      state.known = Math.max(state.known, totals[0]?.count ?? state.known + 1 + unsent);
      // Hits counted here meanwhile, or on their way in a flush, may not be in the store's total.
      return this.verdict(state.known + state.pending, state.windowStart, now);
    } catch (error) {
      this.logger.warn({ err: error }, 'rate limit store unavailable; counting locally');
      state.pending += 1;
      return this.verdict(state.known + state.pending, state.windowStart, now);
    } finally {
      state.sending -= unsent;
    }
  }

  private verdict(used: number, windowStart: number, now: number): RateLimitVerdict {
    return {
      allowed: used <= this.limit,
      limit: this.limit,
      remaining: Math.max(0, this.limit - used),
      resetSeconds: Math.max(1, Math.ceil((windowStart + this.windowMs - now) / 1000)),
      windowSeconds: this.windowMs / 1000,
    };
  }

  private startBucket(bucket: string, windowStart: number): BucketState {
    const state: BucketState = {
      windowStart,
      known: 0,
      pending: 0,
      sending: 0,
      lastHitAt: this.now(),
      firstSync: Promise.resolve(),
      syncing: true,
    };
    this.buckets.set(bucket, state);
    state.firstSync = this.consume({ windowStart, hits: [{ bucket, count: 1 }] })
      .then(
        ({ totals }) => {
          state.known = totals[0]?.count ?? 1;
        },
        (error: unknown) => {
          // Failing open: the hit waits for the next flush, and the local count still limits this
          // replica until the store answers again.
          state.pending += 1;
          this.logger.warn({ err: error }, 'rate limit store unavailable; counting locally');
        },
      )
      .finally(() => {
        state.syncing = false;
      });
    return state;
  }

  /**
   * Sends the hits counted since the last flush and learns every replica's totals for the buckets in
   * use, so a replica's view of a busy credential is never more than one interval old. A bucket whose
   * first hit is still on its way to the store is left out: that hit is its request's to send, and
   * sending it here too would count it twice.
   */
  async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      const now = this.now();
      const currentWindow = this.windowStartAt(now);
      const sending = new Map<string, { state: BucketState; count: number }>();
      for (const [bucket, state] of this.buckets) {
        if (state.windowStart !== currentWindow) {
          this.buckets.delete(bucket);
        } else if (!state.syncing && (state.pending > 0 || now - state.lastHitAt < ACTIVE_MS)) {
          const count = state.pending - state.sending;
          state.sending += count;
          sending.set(bucket, { state, count });
        }
      }
      if (sending.size === 0) return;
      try {
        const { totals } = await this.consume({
          windowStart: currentWindow,
          hits: [...sending].map(([bucket, { count }]) => ({ bucket, count })),
        });
        for (const { bucket, count } of totals) {
          const sent = sending.get(bucket);
          if (!sent) continue;
          // Off the state the count was read from: hits counted since then stay pending.
          sent.state.pending -= sent.count;
          // A hit decided at the store meanwhile may have brought a newer total than this answer's.
          sent.state.known = Math.max(sent.state.known, count);
        }
      } finally {
        for (const { state, count } of sending.values()) state.sending -= count;
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'rate limit flush failed; will retry');
    } finally {
      this.flushing = false;
    }
  }
}
