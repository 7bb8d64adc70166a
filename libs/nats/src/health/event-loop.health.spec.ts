import { HealthIndicatorService } from '@nestjs/terminus';

import { EventLoopHealthIndicator } from './event-loop.health.js';

/** Holds the event loop, as a long synchronous task would. */
function block(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end);
}

/**
 * The histogram samples the gap between two ticks of its own 20 ms timer, so a block shows only once
 * a tick came before it and one after it. A longer timer set now fires after the histogram's next tick.
 */
const histogramTicked = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('EventLoopHealthIndicator', () => {
  let indicator: EventLoopHealthIndicator;

  beforeEach(() => {
    indicator = new EventLoopHealthIndicator(new HealthIndicatorService());
  });

  afterEach(() => indicator.onModuleDestroy());

  it('is up and reports how long the loop was held since the previous check', async () => {
    await histogramTicked();
    block(300);
    await histogramTicked();
    const blocked = indicator.check('event_loop').event_loop;
    expect(blocked.status).toBe('up');
    expect(blocked.maxDelayMs).toBeGreaterThanOrEqual(250);
    expect(blocked.p99DelayMs).toBeGreaterThanOrEqual(250);
    expect(indicator.check('event_loop').event_loop).toEqual({ status: 'up', p99DelayMs: 0, maxDelayMs: 0 });
  });
});
