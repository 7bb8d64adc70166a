import { RunJobsStream } from '#contracts';
import { defineJob, type JobDefinition } from '#nats';

/** "Advance this run from its checkpoints." The run row holds everything else. */
export interface RunJob {
  runId: string;
  /** Numbers the run's jobs: its first, each wake-up after a wait, each recovery of a lost job. */
  dispatch: number;
}

export interface RunJobSettings {
  leaseMs: number;
  maxDeliver: number;
}

/**
 * The catalog entry of run jobs. A job's message id is `run:<runId>:<dispatch>`, so publishing the
 * same dispatch twice (a retried publish, two sweepers) stores one job.
 */
export function runJob({ leaseMs, maxDeliver }: RunJobSettings): JobDefinition<RunJob> {
  return defineJob<RunJob>({
    name: 'run',
    stream: RunJobsStream.stream,
    subject: RunJobsStream.subject,
    consumer: RunJobsStream.consumer,
    ackWaitMs: leaseMs,
    maxDeliver,
    duplicateWindowMs: 10 * 60_000,
    messageId: (job) => `run:${job.runId}:${job.dispatch}`,
    parse: (data) => {
      const job = data as Partial<RunJob> | null;
      if (typeof job?.runId !== 'string' || typeof job.dispatch !== 'number') {
        throw new Error('not a run job');
      }
      return { runId: job.runId, dispatch: job.dispatch };
    },
  });
}
