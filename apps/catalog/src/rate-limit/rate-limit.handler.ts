import { CatalogSubjects, type RateLimitConsume, type RateLimitTotals } from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';

import { RateLimitRepository } from './rate-limit.repository.js';

const HOUR_MS = 3_600_000;

@Controller()
export class RateLimitHandler {
  constructor(private readonly windows: RateLimitRepository) {}

  @Handles(CatalogSubjects.rateLimitConsume)
  async consume(request: RateLimitConsume): Promise<RateLimitTotals> {
    return { totals: await this.windows.add(request.windowStart, request.hits) };
  }

  /** Windows older than the previous hour can no longer be asked about. */
  @Interval(10 * 60_000)
  async forgetOldWindows(): Promise<void> {
    await this.windows.deleteBefore(Date.now() - 2 * HOUR_MS);
  }
}
