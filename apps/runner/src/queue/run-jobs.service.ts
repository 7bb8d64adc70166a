import { contextOfTraceParent } from '#common';
import { JetStreamQueue, type JobDefinition } from '#nats';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';

import { RunnerConfig } from '../runner.config.js';
import { RUNNER_LOGGER } from '../runner.tokens.js';
import { type RunJob, runJob } from './run-job.js';

/**
 * Publishes run jobs to the RUNS stream. The stream and its consumer are made ready before the
 * service answers anything, so the first accepted run finds them.
 */
@Injectable()
export class RunJobs implements OnModuleInit {
  readonly definition: JobDefinition<RunJob>;

  constructor(
    private readonly queue: JetStreamQueue,
    config: RunnerConfig,
    @Inject(RUNNER_LOGGER) private readonly logger: Logger,
  ) {
    this.definition = runJob({ leaseMs: config.RUNNER_LEASE_MS, maxDeliver: config.RUNNER_MAX_DELIVER });
  }

  async onModuleInit(): Promise<void> {
    await this.queue.ensure(this.definition);
  }

  /**
   * Queues a run's job; resolves once JetStream has stored it. With the run's `traceParent`, the
   * job's handling is a span of the run's trace; without, of the active one (the request that moved
   * the run: a resume, a cancel with a rollback, an approval).
   */
  async publish(job: RunJob, traceParent?: string | null): Promise<void> {
    await this.queue.publish(
      this.definition,
      job,
      traceParent ? { trace: contextOfTraceParent(traceParent) } : {},
    );
  }

  /** Jobs the queue holds that no runner has been handed yet. */
  async undelivered(): Promise<number> {
    return (await this.queue.consumerBacklog(this.definition)).pending;
  }

  /**
   * Queues a run's job, and never throws: the run row is already written, so when the publish
   * fails the sweeper finds the run `queued` (or its lease run out) and publishes it again.
   */
  publishSoon(job: RunJob, traceParent?: string | null): Promise<void> {
    return this.publish(job, traceParent).catch((error: unknown) => {
      this.logger.warn(
        { err: error, runId: job.runId },
        'publishing a run job failed; the sweeper retries it',
      );
    });
  }
}
