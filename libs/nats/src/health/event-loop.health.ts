import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { type HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** How often the event loop is sampled; a sample is the gap between two timer ticks. */
const RESOLUTION_MS = 20;

const toDelayMs = (nanoseconds: number): number =>
  Math.max(0, Math.round((nanoseconds / 1e6 - RESOLUTION_MS) * 10) / 10);

/**
 * Liveness. That the check answers at all shows the event loop turns; the delay it reports is the
 * longest the loop was held up since the previous check. It reads no dependency on purpose: a
 * Postgres or NATS outage must make a process unready, never get it restarted.
 */
@Injectable()
export class EventLoopHealthIndicator implements OnModuleDestroy {
  private readonly histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });

  constructor(private readonly indicators: HealthIndicatorService) {
    this.histogram.enable();
  }

  check<const Key extends string>(key: Key): HealthIndicatorResult<Key> {
    const result = this.indicators.check(key).up({
      p99DelayMs: toDelayMs(this.histogram.count > 0 ? this.histogram.percentile(99) : 0),
      maxDelayMs: toDelayMs(this.histogram.max),
    });
    this.histogram.reset();
    return result;
  }

  onModuleDestroy(): void {
    this.histogram.disable();
  }
}
