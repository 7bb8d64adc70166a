import { PeriodicTask } from '#common';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';

import { EventsConfig } from '../events.config.js';
import { LOGGER } from '../events.tokens.js';
import { AppEventRepository } from '../events/app-event.repository.js';
import { EventJobs } from './event-jobs.service.js';

const SWEEP_BATCH = 500;
const RETENTION_BATCH = 5_000;

/**
 * Two background duties of every replica. The sweep queues again each stored event whose fan-out
 * has not finished a while after it arrived (its publish was lost, or its job gave up while the
 * runner was down), so every accepted event gets its outcomes. Retention deletes events past the
 * contract's 30 days, with their outcomes.
 */
@Injectable()
export class EventUpkeep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly sweep: PeriodicTask;
  private readonly retention: PeriodicTask;

  constructor(
    private readonly events: AppEventRepository,
    private readonly jobs: EventJobs,
    config: EventsConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    const failed = (what: string) => (error: unknown) =>
      logger.warn({ err: error }, `${what} failed; trying again`);
    this.sweep = new PeriodicTask(
      config.EVENTS_SWEEP_INTERVAL_MS,
      async () => {
        await this.requeueUnfinished(config.EVENTS_SWEEP_INTERVAL_MS * 2);
      },
      failed('sweeping unfinished events'),
    );
    this.retention = new PeriodicTask(
      config.EVENTS_RETENTION_INTERVAL_MS,
      async () => {
        await this.deleteExpired();
      },
      failed('deleting expired events'),
    );
  }

  onApplicationBootstrap(): void {
    this.sweep.start();
    this.retention.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.sweep.stop(), this.retention.stop()]);
  }

  async requeueUnfinished(olderThanMs: number): Promise<number> {
    const claimed = await this.events.claimUnfinished(olderThanMs, SWEEP_BATCH);
    await Promise.all(claimed.map(({ id, sweeps }) => this.jobs.publish({ eventId: id, sweep: sweeps })));
    if (claimed.length > 0) this.logger.info({ events: claimed.length }, 'queued unfinished events again');
    return claimed.length;
  }

  async deleteExpired(): Promise<number> {
    let total = 0;
    for (let deleted = RETENTION_BATCH; deleted === RETENTION_BATCH; total += deleted) {
      deleted = await this.events.deleteExpired(RETENTION_BATCH);
    }
    if (total > 0) this.logger.info({ events: total }, 'deleted events past retention');
    return total;
  }
}
