import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type BeforeApplicationShutdown,
} from '@nestjs/common';
import type { Logger } from 'pino';

import { RunJobs } from '../queue/run-jobs.service.js';
import { RunnerConfig } from '../runner.config.js';
import { RUNNER_LOGGER } from '../runner.tokens.js';
import { RunChanges } from '../runs/run-changes.service.js';
import { RunControlRepository, type SweptRun } from '../runs/run-control.repository.js';

const BATCH = 200;
/**
 * Scheduled runs let through at their time per statement: a minute's thousands of schedules come due
 * at the same instant, and each statement only changes columns of rows already written.
 */
const RELEASE_BATCH = 1_000;
// The floor keeps a due run the sweep cannot move yet (its row locked a moment) from spinning it.
const MIN_DELAY_MS = 20;

/**
 * The durable timer and the safety net of the queue. Every few moments it moves back to the queue:
 * waiting runs whose delay or retry is due, queued runs whose job seems lost (a publish that failed
 * after the run was written), and running runs whose runner died after JetStream gave up on the job.
 * No process sleeps through a delay: a wait is a row with a wake time, so a restart loses nothing.
 * It also lets scheduled runs written before their time go on at that time
 * (`RunControlRepository.releaseScheduled`), and opens the flow-control gates whose time has come
 * (`RunControlRepository.openDueGates`).
 */
@Injectable()
export class RunSweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer?: NodeJS.Timeout;
  /** When the timer fires (ms since the epoch); Infinity while a sweep runs. */
  private nextSweepAt = Number.POSITIVE_INFINITY;
  /** A wake this runner learned of while a sweep ran, for the timer set after it. */
  private expected = Number.POSITIVE_INFINITY;
  private sweeping?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly runs: RunControlRepository,
    private readonly changes: RunChanges,
    private readonly jobs: RunJobs,
    private readonly config: RunnerConfig,
    @Inject(RUNNER_LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule();
  }

  /** Before the NATS connection and the database pool close, which happens on application shutdown. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.sweeping;
  }

  /**
   * A run this runner executed now waits until `at`: the next sweep comes by then, not at the next
   * interval. (A sweep also looks for the earliest wake after it runs; this covers the runs that
   * start waiting between two sweeps.)
   */
  expectWake(at: Date): void {
    const due = at.getTime();
    if (this.stopped || due >= this.nextSweepAt) return;
    if (this.sweeping) {
      this.expected = Math.min(this.expected, due);
      return;
    }
    clearTimeout(this.timer);
    this.schedule(due - Date.now());
  }

  /** Sweeps until nothing is due; answers how many runs went back to the queue or on from a gate. */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const { released, jobs } = await this.runs.releaseScheduled(RELEASE_BATCH);
      await this.publish(jobs);
      total += released;
      if (released < RELEASE_BATCH || this.stopped) break;
    }
    total += await this.runs.openDueGates(BATCH);
    for (;;) {
      // Asked again for each batch: one sweep can go on for as long as runs keep falling due, and the
      // line grows with what it wakes.
      const requeueAfterMs = (await this.queueHasBacklog()) ? null : this.config.RUNNER_REQUEUE_AFTER_MS;
      const moved = await this.runs.sweep(BATCH, requeueAfterMs, this.config.RUNNER_LEASE_MS);
      // Only a woken run changed as a client sees it; the others were and stay queued or running.
      for (const run of moved) if (run.woken) this.changes.changed(run.runId, 'queued');
      await this.publish(moved);
      total += moved.length;
      if (moved.length < BATCH || this.stopped) return total;
    }
  }

  /** A failed publish leaves the run queued; the sweep after RUNNER_REQUEUE_AFTER_MS retries it. */
  private async publish(runs: readonly SweptRun[]): Promise<void> {
    await Promise.all(
      runs.map(({ runId, dispatch, traceParent }) => this.jobs.publishSoon({ runId, dispatch }, traceParent)),
    );
  }

  /**
   * Whether the queue holds jobs no runner has been handed yet. Then a run queued for long is most
   * likely waiting its turn, not lost, and a copy of its job would only lengthen the line: under a
   * backlog of tens of thousands, copies every `RUNNER_REQUEUE_AFTER_MS` made most of the runners'
   * work (docs/benchmarks.md, "Timers"). A job that is really lost is published again once the line
   * is through. When JetStream does not answer, the sweep looks for lost jobs as it always did.
   */
  private async queueHasBacklog(): Promise<boolean> {
    try {
      return (await this.jobs.undelivered()) > 0;
    } catch (error) {
      this.logger.debug({ err: error }, 'the queue backlog is unknown; looking for lost jobs');
      return false;
    }
  }

  /**
   * The next sweep comes after the interval, or sooner when a waiting run is due before that: a
   * delay wakes at its time, not up to an interval late. A run that starts waiting after this
   * look (on this replica or another) is woken by the sweep after it, at most an interval late.
   */
  private async untilNextSweep(): Promise<number> {
    const interval = this.config.RUNNER_SWEEP_INTERVAL_MS;
    const nextWake = await this.runs.nextWakeInMs();
    return nextWake === null ? interval : Math.min(interval, Math.ceil(nextWake));
  }

  private schedule(delay = this.config.RUNNER_SWEEP_INTERVAL_MS): void {
    if (this.stopped) return;
    const wait = Math.max(MIN_DELAY_MS, Math.min(delay, this.expected - Date.now()));
    this.expected = Number.POSITIVE_INFINITY;
    this.nextSweepAt = Date.now() + wait;
    this.timer = setTimeout(() => {
      this.nextSweepAt = Number.POSITIVE_INFINITY;
      this.sweeping = this.sweep()
        .then((moved) => {
          if (moved > 0) this.logger.debug({ moved }, 'runs moved back to the queue');
          return this.untilNextSweep();
        })
        .catch((error: unknown) => {
          this.logger.warn({ err: error }, 'sweeping runs failed; trying again');
          return this.config.RUNNER_SWEEP_INTERVAL_MS;
        })
        .then((next) => {
          this.sweeping = undefined;
          this.schedule(next);
        });
    }, wait);
  }
}
