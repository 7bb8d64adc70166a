import { type ErrorBody, mapConcurrently, PeriodicTask } from '#common';
import {
  nextScheduleTime,
  servicePrincipal,
  type StartRunRequest,
  type StartRunsResult,
  STARTS_AT_ONCE_MAX,
} from '#contracts';
import { type BeforeApplicationShutdown, Injectable, type OnApplicationBootstrap } from '@nestjs/common';

import { RunnerClient } from '../peers/runner.client.js';
import { WorkflowConfig } from '../workflow.config.js';
import { logger } from '../workflow.logger.js';
import type { ScheduleRecord } from './schedule.mapper.js';
import { ScheduleRepository } from './schedule.repository.js';
import { isStale, scheduleIdempotencyKey } from './schedule.util.js';

/** Rows claimed at a time. */
const BATCH_SIZE = STARTS_AT_ONCE_MAX;

/** Claimed batches sent at once by one replica (each a request to a runner, whichever answers). */
const BATCHES_IN_FLIGHT = 4;

/** Requests of a claimed batch sent at once: one per organization with due times in it. */
const REQUESTS_AT_ONCE = 4;

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

  /**
   * Fires everything due now or within `SCHEDULE_LEAD_MS`, a claimed batch at a time, until nothing
   * due is left unclaimed: a few batches in flight, so one is claimed and settled while another's runs
   * are written. A run due later than now is written now and held by the runner until its time.
   */
  async tick(now = new Date()): Promise<void> {
    // A row moves on to its next time after now, or after its due time when that is still to come
    // (claimed early, within the lead): one computation per expression, zone and starting time.
    const nextTimes = new Map<string, Date | null>();
    const nextTimeOf = ({ cron, timeZone, nextRunAt }: ScheduleRecord) => {
      const after = nextRunAt > now ? nextRunAt : now;
      const key = `${timeZone} ${after.getTime()} ${cron}`;
      const known = nextTimes.get(key);
      if (known !== undefined) return known;
      const next = nextScheduleTime(cron, timeZone, after);
      nextTimes.set(key, next);
      return next;
    };
    await Promise.all(Array.from({ length: BATCHES_IN_FLIGHT }, () => this.drain(now, nextTimeOf)));
  }

  private async drain(now: Date, nextTimeOf: (row: ScheduleRecord) => Date | null): Promise<void> {
    // A claim outlives the longest send (one request timeout) with room to spare.
    const leaseMs = 2 * this.config.RPC_TIMEOUT_MS;
    for (;;) {
      const due = await this.schedules.claimDue(
        new Date(now.getTime() + this.config.SCHEDULE_LEAD_MS),
        BATCH_SIZE,
        leaseMs,
      );
      const outcomes = await this.fire(due, now);
      const settled = due.filter((_, index) => outcomes[index] !== 'retry');
      await this.schedules.advance(settled.map((row) => ({ row, next: nextTimeOf(row) })));
      const retried = due.filter((_, index) => outcomes[index] === 'retry');
      await mapConcurrently(retried, REQUESTS_AT_ONCE, (row) => this.schedules.release(row));
      // Released rows would be claimed again at once; they wait for the next tick.
      if (due.length < BATCH_SIZE || retried.length > 0 || this.stopping) return;
    }
  }

  /**
   * Sends the claimed due times' runs, one request per organization (`runsStartMany`): what became
   * of each row, in its place. A due time long past is skipped; one the runner refused for good (plan
   * limit, invalid diagram, …) is not tried again; one it could not start now stays due.
   */
  private async fire(rows: readonly ScheduleRecord[], now: Date): Promise<Outcome[]> {
    const outcomes = new Array<Outcome>(rows.length);
    const byOrganization = new Map<string, number[]>();
    rows.forEach((row, index) => {
      if (isStale(row.nextRunAt, now, this.config.SCHEDULE_MISFIRE_GRACE_MS)) {
        logger.warn(contextOf(row), 'scheduled run skipped: its time passed too long ago');
        outcomes[index] = 'skipped';
        return;
      }
      const indexes = byOrganization.get(row.organizationId) ?? [];
      indexes.push(index);
      byOrganization.set(row.organizationId, indexes);
    });
    await mapConcurrently([...byOrganization], REQUESTS_AT_ONCE, async ([organizationId, indexes]) => {
      const starts = indexes.map((index) => startOf(rows[index], now));
      let results: StartRunsResult[];
      try {
        results = await this.runner.startRuns(servicePrincipal(organizationId), starts);
      } catch (error) {
        logger.warn(
          { organizationId, runs: starts.length, err: error },
          'scheduled run not started; retrying',
        );
        for (const index of indexes) outcomes[index] = 'retry';
        return;
      }
      results.forEach((result, place) => {
        const index = indexes[place];
        outcomes[index] = 'error' in result ? this.refusal(rows[index], result.error) : 'sent';
      });
    });
    return outcomes;
  }

  private refusal(row: ScheduleRecord, { code, message }: ErrorBody['error']): Outcome {
    if (code === 'service_unavailable' || code === 'internal') {
      logger.warn({ ...contextOf(row), code, reason: message }, 'scheduled run not started; retrying');
      return 'retry';
    }
    // The runner refused this run (plan limit, invalid diagram, …): trying again would not help.
    logger.warn({ ...contextOf(row), code, reason: message }, 'scheduled run refused');
    return 'failed';
  }
}

function contextOf(row: ScheduleRecord) {
  return { workflowId: row.workflowId, triggerNodeId: row.triggerNodeId, due: row.nextRunAt.toISOString() };
}

/** A due time still to come (claimed within the lead) is written now and held until that time. */
function startOf(row: ScheduleRecord, now: Date): StartRunRequest {
  return {
    workflowId: row.workflowId,
    input: '',
    draft: false,
    triggerNodeId: row.triggerNodeId,
    trigger: 'schedule',
    idempotencyKey: scheduleIdempotencyKey(row.workflowId, row.triggerNodeId, row.nextRunAt),
    ...(row.nextRunAt > now ? { notBefore: row.nextRunAt.toISOString() } : {}),
  };
}
