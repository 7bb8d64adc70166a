import type { GateLimits } from '../auth/request-gate.js';
import type { AddressLimit } from '../auth/route-config.js';
import type { GatewayConfig } from '../gateway.config.js';
import { type ConsumeHits, RateLimiter } from './rate-limiter.js';

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/** Every limit the gateway applies, each shared by all replicas through catalog's store. */
export class RateLimits implements GateLimits {
  readonly credential: RateLimiter;
  readonly organization: RateLimiter;
  readonly address: Record<AddressLimit, RateLimiter>;
  readonly refused: RateLimiter;

  constructor(config: GatewayConfig, consume: ConsumeHits) {
    const limiter = (limit: number, windowMs: number) => new RateLimiter(limit, consume, Date.now, windowMs);
    this.credential = limiter(config.RATE_LIMIT_PER_HOUR, HOUR_MS);
    this.organization = limiter(config.organizationRateLimitPerHour, HOUR_MS);
    this.address = {
      auth: limiter(config.AUTH_RATE_LIMIT_PER_MINUTE, MINUTE_MS),
      hooks: limiter(config.HOOKS_RATE_LIMIT_PER_MINUTE, MINUTE_MS),
    };
    this.refused = limiter(config.FAILED_CREDENTIALS_PER_MINUTE, MINUTE_MS);
  }

  /** Sends what each counted and not yet shared, then stops their timers. */
  async stop(): Promise<void> {
    const all = [this.credential, this.organization, ...Object.values(this.address), this.refused];
    await Promise.all(all.map((limiter) => limiter.flush()));
    for (const limiter of all) limiter.stop();
  }
}
