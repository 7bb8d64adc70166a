import { setMaxListeners } from 'node:events';

import { RunnerSubjects } from '#contracts';
import {
  EVERY_KEY,
  type ExecutionSlots,
  type JobDelivery,
  type JobOutcome,
  JobOutcomes,
  subscribeEvent,
} from '#nats';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';

import type { RunJob } from '../queue/run-job.js';
import { RunJobs } from '../queue/run-jobs.service.js';
import { RunnerConfig } from '../runner.config.js';
import { NATS_CONNECTION } from '../runner.tokens.js';
import { RunSweeper } from '../sweeper/run-sweeper.service.js';
import { ENGINE_RESOURCES, type EngineResources } from './engine-resources.js';
import { type NewRun, runRecordOf, triggerStepOf } from '../runs/new-run.js';
import { type ExecutionEnd, RunExecution } from './run-execution.js';
import { HELD_STATUSES, type RunWithSteps } from './run-state.js';

/**
 * Executes runs. A run reaches it two ways: as a job from the RUNS stream (claimed here, on any
 * replica), or straight from the runner that accepted it when that runner has a free slot (like a
 * sync match in Temporal): the run is then written, already held by this runner, by its first
 * checkpoint. Either way the run is held by a lease in Postgres, renewed while it executes and
 * fenced by a token, and a runner that dies leaves a run the queue or the sweeper hands on.
 */
@Injectable()
export class RunEngine implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly inline = new Set<Promise<void>>();
  private readonly shutdown = new AbortController();
  /** The runs this runner executes now, by id: a cancel or a pause reaches them here. */
  private readonly executing = new Map<string, RunExecution>();
  private readonly notices: Subscription[] = [];
  private stopping = false;

  constructor(
    @Inject(ENGINE_RESOURCES) private readonly resources: EngineResources,
    private readonly jobs: RunJobs,
    private readonly config: RunnerConfig,
    @Inject(NATS_CONNECTION) private readonly nats: NatsConnection,
    private readonly sweeper: RunSweeper,
  ) {
    // Each run started inline listens to the shutdown until it ends: one listener per slot in use.
    setMaxListeners(0, this.shutdown.signal);
  }

  /**
   * A cancelled run's holder stops at once (the cancel is already committed and fenced it off, so it
   * writes nothing more; its steps' requests are aborted). A holder asked to pause starts nothing
   * new. Missing a notice costs time, not correctness: the holder learns both at its next write or
   * lease renewal.
   */
  onApplicationBootstrap(): void {
    // Whoever may publish a notice could send anything: only a run id this runner executes acts.
    const act = (payload: unknown, action: (execution: RunExecution) => void) => {
      const runId = (payload as { runId?: unknown } | null)?.runId;
      const execution = typeof runId === 'string' ? this.executing.get(runId) : undefined;
      if (execution) action(execution);
    };
    this.notices.push(
      subscribeEvent(
        this.nats,
        RunnerSubjects.runCancelled,
        // A rollback is not cancelled (a cancel of a rolling-back run is refused): the notice of the
        // cancel that began it may reach the runner that took the rollback up.
        (payload) => act(payload, (execution) => !execution.rollingBack && execution.lose()),
        EVERY_KEY,
      ),
      subscribeEvent(
        this.nats,
        RunnerSubjects.runPauseRequested,
        (payload) => act(payload, (execution) => execution.requestPause()),
        EVERY_KEY,
      ),
    );
  }

  /** One delivery of a run job: claim the run and execute it, or say why there is nothing to do. */
  async handle(job: RunJob, delivery: JobDelivery): Promise<JobOutcome> {
    const claimed = await this.resources.runs.claim(job.runId, this.resources.settings.leaseMs);
    if (!claimed) {
      const outcome = await this.notClaimed(job, delivery);
      this.resources.logger.debug({ ...job, outcome }, 'run job found nothing to claim');
      return outcome;
    }
    this.resources.changed(claimed.run.id, claimed.run.status);
    const end = await this.execute(claimed, delivery.signal);
    this.resources.logger.debug({ ...job, end: describe(end) }, 'run execution ended');
    return end.kind === 'handedBack' ? JobOutcomes.retry(0) : JobOutcomes.ack;
  }

  /**
   * Executes a run this runner has just accepted, in a slot it took for it, before the run is on
   * record: the run row is written by its first checkpoint, with the steps so far (all of them for
   * a run of pure steps). The caller answers once `durable` settles. When the execution cannot
   * finish here (shutdown, a failing database), the run goes to the queue.
   */
  startNew(run: NewRun, slots: ExecutionSlots): RunExecution {
    const trigger = triggerStepOf(run);
    const execution = new RunExecution(this.resources, runRecordOf(run, 'running', 1), [trigger], {
      firstWrite: (steps, settlement) =>
        this.resources.runs.insertStarted(
          run,
          this.resources.settings.leaseMs,
          [trigger, ...steps],
          settlement,
        ),
    });
    const task: Promise<void> = this.drive(execution, run.id, 1, this.shutdown.signal)
      .then(
        async (end) => {
          this.resources.logger.debug(
            { runId: run.id, end: describe(end), inline: true },
            'run execution ended',
          );
          if (end.kind === 'handedBack') await this.requeue(execution, run);
        },
        async (error: unknown) => {
          this.resources.logger.warn({ err: error, runId: run.id }, 'run execution failed; queueing the run');
          await this.requeue(execution, run);
        },
      )
      .finally(() => {
        this.inline.delete(task);
        slots.release();
      });
    this.inline.add(task);
    return execution;
  }

  /** False once the runner is stopping: runs it accepts from then on go through the queue. */
  get acceptsInline(): boolean {
    return !this.stopping;
  }

  /** Runs started inline get the grace period to finish, then go back to the queue. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    for (const subscription of this.notices.splice(0)) subscription.unsubscribe();
    if (this.inline.size === 0) return;
    const settled = Promise.allSettled([...this.inline]);
    const timer = new Promise<'timeout'>((resolve) =>
      setTimeout(() => resolve('timeout'), this.config.RUNNER_SHUTDOWN_GRACE_MS).unref(),
    );
    if ((await Promise.race([settled, timer])) === 'timeout') {
      this.shutdown.abort();
      await Promise.allSettled([...this.inline]);
    }
  }

  /** Walks a claimed run; `signal` hands it back (the runner is stopping). */
  private execute(claimed: RunWithSteps, signal: AbortSignal): Promise<ExecutionEnd> {
    const execution = new RunExecution(this.resources, claimed.run, claimed.steps);
    return this.drive(execution, claimed.run.id, claimed.run.leaseToken, signal);
  }

  private async drive(
    execution: RunExecution,
    runId: string,
    leaseToken: number,
    signal: AbortSignal,
  ): Promise<ExecutionEnd> {
    const { runs, settings } = this.resources;
    let onRecord = false;
    execution.durable.then(
      () => (onRecord = true),
      () => undefined,
    );
    // The lease is renewed while the run executes (a job's in-progress acks go with it); a refused
    // renewal means the run was terminated or taken over, and this execution must stop writing.
    const heartbeat = setInterval(
      () => {
        if (!onRecord) return;
        runs.renewLease(runId, leaseToken, settings.leaseMs).then(
          (status) => {
            if (status === null) execution.lose();
            else if (status === 'waitingForPause') execution.requestPause();
          },
          (error: unknown) => this.resources.logger.warn({ err: error, runId }, 'lease renewal failed'),
        );
      },
      Math.floor(settings.leaseMs / 3),
    );
    const handBack = () => execution.handBack();
    if (signal.aborted) execution.handBack();
    signal.addEventListener('abort', handBack, { once: true });
    this.executing.set(runId, execution);
    try {
      const end = await execution.execute();
      if (end.kind === 'settled' && end.settlement.status === 'waiting') {
        this.sweeper.expectWake(end.settlement.wakeAt);
      }
      if (end.kind === 'handedBack' && onRecord) await runs.releaseLease(runId, leaseToken);
      return end;
    } catch (error) {
      // Let the next attempt take the run over at once rather than after the lease runs out.
      if (onRecord) await runs.releaseLease(runId, leaseToken).catch(() => undefined);
      throw error;
    } finally {
      clearInterval(heartbeat);
      signal.removeEventListener('abort', handBack);
      if (this.executing.get(runId) === execution) this.executing.delete(runId);
    }
  }

  /** A run this runner started but cannot finish goes to the queue, if it is on record at all. */
  private async requeue(execution: RunExecution, run: NewRun): Promise<void> {
    const onRecord = await execution.durable.then(
      () => true,
      () => false,
    );
    if (onRecord) await this.jobs.publishSoon({ runId: run.id, dispatch: 0 }, run.traceParent);
  }

  /**
   * The run was not there to take: finished, waiting for its timer, or held by a live runner. Only
   * the last case keeps the job, to take the run over should its holder's lease run out.
   */
  private async notClaimed(job: RunJob, delivery: JobDelivery): Promise<JobOutcome> {
    const hold = await this.resources.runs.holdOf(job.runId);
    if (delivery.lastDelivery || !hold) return JobOutcomes.ack;
    if ((HELD_STATUSES as readonly string[]).includes(hold.status) && hold.leaseLeftMs !== null) {
      return JobOutcomes.retry(
        Math.min(Math.max(0, hold.leaseLeftMs) + 250, this.resources.settings.leaseMs),
      );
    }
    if (hold.status === 'queued') return JobOutcomes.retry(100);
    return JobOutcomes.ack;
  }
}

function describe(end: ExecutionEnd): string {
  return end.kind === 'settled' ? end.settlement.status : end.kind;
}
