import { PeriodicTask } from '#common';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';

import { RunnerConfig } from '../runner.config.js';
import { RUNNER_LOGGER } from '../runner.tokens.js';
import { oldestQueuedRunAge, unfinishedRuns } from './run.metrics.js';
import { RunGaugeRepository } from './run-gauge.repository.js';

/**
 * Reads the unfinished runs from the database every `METRICS_POLL_MS` into the run gauges: a scrape
 * reads the last values and never queries. Every runner replica reports the same counts (they read
 * one database): aggregate with `max`, not `sum`.
 */
@Injectable()
export class RunGauges implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly task: PeriodicTask;

  constructor(
    private readonly runs: RunGaugeRepository,
    config: RunnerConfig,
    @Inject(RUNNER_LOGGER) logger: Logger,
  ) {
    this.task = new PeriodicTask(
      config.METRICS_POLL_MS,
      () => this.poll(),
      (error) => logger.warn({ err: error }, 'could not count the unfinished runs for the metrics'),
    );
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }

  async poll(): Promise<void> {
    const { counts, oldestQueuedAt } = await this.runs.unfinished();
    for (const [status, count] of Object.entries(counts)) unfinishedRuns.labels(status).set(count);
    oldestQueuedRunAge.set(oldestQueuedAt ? Math.max(0, Date.now() - oldestQueuedAt.getTime()) / 1000 : 0);
  }
}
