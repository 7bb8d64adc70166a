import { DomainException, mapConcurrently, PeriodicTask } from '#common';
import { nextScheduleTime, servicePrincipal } from '#contracts';
import { type BeforeApplicationShutdown, Injectable, type OnApplicationBootstrap } from '@nestjs/common';

import { RunnerClient } from '../peers/runner.client.js';
import { WorkflowConfig } from '../workflow.config.js';
import { logger } from '../workflow.logger.js';
import type { ScheduleRecord } from './schedule.mapper.js';
import { ScheduleRepository } from './schedule.repository.js';
import { isStale, scheduleIdempotencyKey } from './schedule.util.js';

/** Rows claimed at a time. */
const BATCH_SIZE = 200;
/** Runs of a claimed batch started at once: each is a request to a runner. */
const FIRES_AT_ONCE = 32;

/** Sent due times moved on in one statement. */
const SETTLED_AT_ONCE = FIRES_AT_ONCE;

type Outcome = 'sent' | 'skipped' | 'failed' | 'retry';

/**
 * Starts scheduled runs. Every replica polls. A due row is claimed in a short transaction of its own
 * (a lease, committed before anything is sent), its run is sent to the runner with an idempotency key
 * made of the due time, and only then does the row move to its next due time. A due time whose run
 * could not be sent (no runner) stays due for the next tick; a replica that dies after claiming leaves
 * a lease that runs out, and the due time is sent again, with the same key, which the runner answers
 * with the run it may already have started. So a due time is neither lost nor run twice.
 */
@Injectable()
export class SchedulerService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly poller: PeriodicTask;
  private stopping = false;

  constructor(
    private readonly schedules: ScheduleRepository,
    private readonly runner: RunnerClient,
    private readonly config: WorkflowConfig,
  ) {
    this.poller = new PeriodicTask(
      config.SCHEDULER_INTERVAL_MS,
      () => this.tick(),
      (error) => logger.error({ err: error }, 'scheduler tick failed'),
    );
  }

  onApplicationBootstrap(): void {
    this.poller.start();
  }

  /** Before the database and NATS connections close, so the claimed due times are settled. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.poller.stop();
  }

  /** Fires everything due now, a claimed batch at a time, until nothing due is left unclaimed. */
  async tick(now = new Date()): Promise<void> {
    // A claim outlives the longest send (one request timeout) with room to spare.
    const leaseMs = 2 * this.config.RPC_TIMEOUT_MS;
    // Every row of a tick moves on from the same `now`: one computation per expression and zone.
    const nextTimes = new Map<string, Date | null>();
    const nextTimeOf = ({ cron, timeZone }: ScheduleRecord) => {
      const key = `${timeZone} ${cron}`;
      const known = nextTimes.get(key);
      if (known !== undefined) return known;
      const next = nextScheduleTime(cron, timeZone, now);
      nextTimes.set(key, next);
      return next;
    };
    for (;;) {
      const due = await this.schedules.claimDue(now, BATCH_SIZE, leaseMs);
      // Rows are settled a few at a time, in one statement, soon after their runs are sent: a slow
      // start holds up no other row for long, and a row is settled well within its lease.
      const sent: Array<{ row: ScheduleRecord; next: Date | null }> = [];
      const outcomes = await mapConcurrently(due, FIRES_AT_ONCE, async (row) => {
        const outcome = await this.fire(row, now);
        if (outcome === 'retry') {
          await this.schedules.release(row);
        } else {
          sent.push({ row, next: nextTimeOf(row) });
          if (sent.length >= SETTLED_AT_ONCE) await this.schedules.advance(sent.splice(0));
        }
        return outcome;
      });
      await this.schedules.advance(sent.splice(0));
      // Released rows would be claimed again at once; they wait for the next tick.
      if (due.length < BATCH_SIZE || outcomes.includes('retry') || this.stopping) return;
    }
  }

  private async fire(row: ScheduleRecord, now: Date): Promise<Outcome> {
    const context = {
      workflowId: row.workflowId,
      triggerNodeId: row.triggerNodeId,
      due: row.nextRunAt.toISOString(),
    };
    if (isStale(row.nextRunAt, now, this.config.SCHEDULE_MISFIRE_GRACE_MS)) {
      logger.warn(context, 'scheduled run skipped: its time passed too long ago');
      return 'skipped';
    }
    try {
      await this.runner.startRun(servicePrincipal(row.organizationId), {
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
