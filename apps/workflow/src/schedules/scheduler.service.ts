import { DomainException } from '#common';
import { nextScheduleTime, type Principal } from '#contracts';
import { type BeforeApplicationShutdown, Injectable, type OnApplicationBootstrap } from '@nestjs/common';

import { RunnerClient } from '../peers/runner.client.js';
import { WorkflowConfig } from '../workflow.config.js';
import { logger } from '../workflow.logger.js';
import type { ScheduleEntity } from './schedule.entity.js';
import { ScheduleRepository } from './schedule.repository.js';
import { isStale, scheduleIdempotencyKey } from './schedule.util.js';

/** Rows claimed per transaction; their runs are started in parallel. */
const BATCH_SIZE = 20;

type Outcome = 'sent' | 'skipped' | 'failed' | 'retry';

/**
 * Starts scheduled runs. Every replica polls; each due row is claimed by one of them, its run is
 * sent to the runner with an idempotency key made of the due time, and the row moves to its next due
 * time in the same transaction. A crash between the send and the commit re-sends the same key,
 * which the runner answers with the run it already started.
 */
@Injectable()
export class SchedulerService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly schedules: ScheduleRepository,
    private readonly runner: RunnerClient,
    private readonly config: WorkflowConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule();
  }

  /** Before the database and NATS connections close, so a claimed batch finishes or rolls back cleanly. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .catch((error: unknown) => logger.error({ err: error }, 'scheduler tick failed'))
        .finally(() => {
          this.running = undefined;
          this.schedule();
        });
    }, this.config.SCHEDULER_INTERVAL_MS);
  }

  /** Fires everything due now, a batch per transaction, until nothing due is left unclaimed. */
  async tick(now = new Date()): Promise<void> {
    let more = true;
    while (more && !this.stopped) {
      let retrying = false;
      const claimed = await this.schedules.withDue(now, BATCH_SIZE, async (due, manager) => {
        const outcomes = await Promise.all(due.map((row) => this.fire(row, now)));
        for (const [index, row] of due.entries()) {
          // A run the runner could not take yet stays due and is tried again on the next tick.
          if (outcomes[index] === 'retry') retrying = true;
          else await this.schedules.advance(row, nextScheduleTime(row.cron, row.timeZone, now), manager);
        }
      });
      // Rows left due for a retry would be claimed again at once; they wait for the next tick.
      more = claimed === BATCH_SIZE && !retrying;
    }
  }

  private async fire(row: ScheduleEntity, now: Date): Promise<Outcome> {
    const context = {
      workflowId: row.workflowId,
      triggerNodeId: row.triggerNodeId,
      due: row.nextRunAt.toISOString(),
    };
    if (isStale(row.nextRunAt, now, this.config.SCHEDULE_MISFIRE_GRACE_MS)) {
      logger.warn(context, 'scheduled run skipped: its time passed too long ago');
      return 'skipped';
    }
    const principal: Principal = {
      organizationId: row.organizationId,
      userId: null,
      keyId: null,
      role: 'admin',
    };
    try {
      await this.runner.startRun(principal, {
        workflowId: row.workflowId,
        input: '',
        draft: false,
        triggerNodeId: row.triggerNodeId,
        trigger: 'schedule',
        idempotencyKey: scheduleIdempotencyKey(row.workflowId, row.triggerNodeId, row.nextRunAt),
      });
      return 'sent';
    } catch (error) {
      if (
        error instanceof DomainException &&
        error.code !== 'service_unavailable' &&
        error.code !== 'internal'
      ) {
        // The runner refused this run (plan limit, invalid diagram, …): trying again would not help.
        logger.warn({ ...context, code: error.code, reason: error.message }, 'scheduled run refused');
        return 'failed';
      }
      logger.warn({ ...context, err: error }, 'scheduled run not started; retrying');
      return 'retry';
    }
  }
}
