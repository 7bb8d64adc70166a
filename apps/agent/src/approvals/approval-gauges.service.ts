import { PeriodicTask } from '#common';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';

import { AgentConfig } from '../agent.config.js';
import { LOGGER } from '../agent.tokens.js';
import { expiringApprovals, pendingApprovals } from './approval.metrics.js';
import { ApprovalGaugeRepository } from './approval-gauge.repository.js';

/** Reads the approval counts every `METRICS_POLL_MS`: a scrape reads the last ones, never the database. */
@Injectable()
export class ApprovalGauges implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly task: PeriodicTask;

  constructor(
    private readonly approvals: ApprovalGaugeRepository,
    config: AgentConfig,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.task = new PeriodicTask(
      config.METRICS_POLL_MS,
      () => this.poll(),
      (error) => logger.warn({ err: error }, 'could not count the pending approvals for the metrics'),
    );
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }

  async poll(): Promise<void> {
    const counts = await this.approvals.counts();
    pendingApprovals.set(counts.pending);
    for (const [within, count] of Object.entries(counts.expiring))
      expiringApprovals.labels(within).set(count);
  }
}
