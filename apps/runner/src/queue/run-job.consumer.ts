import { ExecutionSlots, JetStreamQueue, type JobWorker } from '#nats';
import { Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';

import { RunEngine } from '../engine/run-engine.service.js';
import { OrganizationBacklogs } from '../flow/organization-backlogs.service.js';
import { RunnerConfig } from '../runner.config.js';
import type { RunJob } from './run-job.js';
import { RunJobs } from './run-jobs.service.js';

/**
 * The durable pull consumer of run jobs: this process pulls as many jobs as it has free execution
 * slots (shared with the runs it executes straight after accepting them) and hands each to the engine.
 */
@Injectable()
export class RunJobConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private worker?: JobWorker<RunJob>;

  constructor(
    private readonly queue: JetStreamQueue,
    private readonly jobs: RunJobs,
    private readonly engine: RunEngine,
    private readonly slots: ExecutionSlots,
    private readonly config: RunnerConfig,
    private readonly backlogs: OrganizationBacklogs,
  ) {}

  onApplicationBootstrap(): void {
    this.worker = this.queue.work(
      this.jobs.definition,
      (job, delivery) => this.engine.handle(job, delivery),
      {
        concurrency: this.config.RUNNER_CONCURRENCY,
        slots: this.slots,
        // Only while some organization has a backlog: otherwise the queue holds no one's backlog,
        // and a slot kept from it would only slow its runs down.
        reserved: () =>
          this.backlogs.any()
            ? Math.min(this.config.RUNNER_INLINE_RESERVE, this.config.RUNNER_CONCURRENCY - 1)
            : 0,
      },
    );
  }

  /** Before the NATS connection and the database pool close, which happens on application shutdown. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.worker?.stop(this.config.RUNNER_SHUTDOWN_GRACE_MS);
  }
}
