import type { RunStatus } from '#contracts';

import type { StoredRunStatus } from './run-state.js';

import type { RecordOutcome, RunRepository } from '../runs/run.repository.js';
import { LeaseLost, type RunSettlement, type StepRecord, WorkflowDeleted } from './run-state.js';

/**
 * Writes a run's first checkpoint when the run row does not exist yet (a run executed by the runner
 * that accepted it): the row and the steps so far in one statement, unless the idempotency key was
 * taken or the workflow was deleted meanwhile.
 */
export type FirstWrite = (steps: readonly StepRecord[], settlement?: RunSettlement) => Promise<RecordOutcome>;

/** Why nothing was written, as the error the execution stops with; null when it was written. */
function refusal(outcome: RecordOutcome): LeaseLost | null {
  switch (outcome) {
    case 'recorded':
      return null;
    case 'key_taken':
      return new LeaseLost();
    case 'workflow_deleted':
      return new WorkflowDeleted();
  }
}

/**
 * Collects a run's step records and writes them in as few round trips as it safely can: records
 * are staged, and a flush writes everything staged so far in one statement, fenced by the lease
 * token. Flushes never overlap: a flush asked for while one is writing waits and then writes what
 * was staged meanwhile, so concurrent branches share round trips.
 */
export class CheckpointWriter {
  /** Settles once something was written: the run is on record (or could not be recorded). */
  readonly durable: Promise<void>;
  private writtenSettlement: RunSettlement | undefined;
  private readonly staged = new Map<string, StepRecord>();
  private writing: Promise<void> | undefined;
  private closed = false;
  private written = false;
  private markDurable!: () => void;
  private failDurable!: (error: unknown) => void;

  constructor(
    private readonly runs: RunRepository,
    private readonly runId: string,
    private readonly leaseToken: number,
    private readonly leaseMs: number,
    /** Called after each write, with the run's status from then on. */
    private readonly onWritten: (status: RunStatus) => void,
    private firstWrite?: FirstWrite,
    /** Called with the run's status as a checkpoint of the holder found it (a pause asked for). */
    private readonly onStatus: (status: StoredRunStatus) => void = () => undefined,
  ) {
    this.durable = new Promise<void>((resolve, reject) => {
      this.markDurable = resolve;
      this.failDurable = reject;
    });
    // Whoever needs it awaits it; an unobserved failure is not an unhandled rejection.
    this.durable.catch(() => undefined);
    if (!firstWrite) {
      this.written = true;
      this.markDurable();
    }
  }

  /** True once the run is on record: its first checkpoint was written, or it was claimed from the queue. */
  get onRecord(): boolean {
    return this.written;
  }

  /** Where the run stands once this runner let go of it (complete, errored, waiting), when written. */
  get settlement(): RunSettlement | undefined {
    return this.writtenSettlement;
  }

  /** Stages a copy of the step's current record; the latest record of a node wins. */
  stage(step: StepRecord): void {
    if (this.closed) return;
    this.staged.set(step.nodeId, { ...step, via: [...step.via] });
  }

  /** Makes everything staged so far durable; with `settlement`, ends this runner's hold on the run. */
  async flush(settlement?: RunSettlement): Promise<void> {
    while (this.writing) await this.writing.catch(() => undefined);
    if (this.closed) throw new LeaseLost();
    if (this.staged.size === 0 && !settlement && this.written) return;
    const steps = [...this.staged.values()];
    this.staged.clear();
    const first = this.firstWrite;
    this.firstWrite = undefined;
    // The status the write left, as the checkpoint answers it (a pausing run's wait is `paused`).
    let written: StoredRunStatus | undefined;
    const write = (
      first
        ? first(steps, settlement).then(refusal)
        : this.runs
            .checkpoint(this.runId, this.leaseToken, this.leaseMs, steps, settlement)
            .then((status) => {
              if (status === null) return new LeaseLost();
              written = status;
              this.onStatus(status);
              return null;
            })
    ).then(
      (lost) => {
        if (lost) {
          this.closed = true;
          if (first) this.failDurable(lost);
          throw lost;
        }
        this.written = true;
        // Known before `durable` settles: whoever answers from the run then sees how it ended.
        this.writtenSettlement = settlement;
        this.markDurable();
        if (settlement) this.closed = true;
        this.onWritten(written ?? settlement?.status ?? 'running');
      },
      (error: unknown) => {
        if (first) this.failDurable(error);
        throw error;
      },
    );
    this.writing = write;
    try {
      await write;
    } finally {
      if (this.writing === write) this.writing = undefined;
    }
  }

  /** Nothing may be written any more (the run was lost or handed back). */
  close(error: unknown = new LeaseLost()): void {
    this.closed = true;
    this.staged.clear();
    if (!this.written) this.failDurable(error);
  }
}
