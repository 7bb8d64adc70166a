import { HotCounter, HotHistogram, RUN_SECONDS_BUCKETS, STEP_SECONDS_BUCKETS } from '#common';
import type { RunStatus, RunTrigger } from '#contracts';
import { Gauge } from 'prom-client';

/**
 * The runs this runner starts, finishes and steps through. Labels are bounded by the contract's own
 * lists: triggers (plus `rerun`), final statuses, node types, step outcomes. A workflow, run or
 * organization id is never a label: per-workflow failures are the API's to answer (runs lists).
 */
const started = new HotCounter({
  name: 'flowmesh_runs_started_total',
  help: 'Runs started, by trigger (manual, api, schedule, event, or rerun).',
  labelNames: ['trigger'] as const,
});
const finished = new HotCounter({
  name: 'flowmesh_runs_finished_total',
  help: 'Runs that reached a final status (complete, errored, terminated) on this runner, by status.',
  labelNames: ['status'] as const,
});
const runSeconds = new HotHistogram({
  name: 'flowmesh_run_duration_seconds',
  help: 'Time from a run being created to its final status, waits included, by final status.',
  labelNames: ['status'] as const,
  buckets: RUN_SECONDS_BUCKETS,
});
/** Every step attempt records here: a hot-path histogram. */
const stepSeconds = new HotHistogram({
  name: 'flowmesh_step_duration_seconds',
  help: 'Time one attempt of a step took to execute, by node type and outcome (done, waiting, error).',
  labelNames: ['node_type', 'outcome'] as const,
  buckets: STEP_SECONDS_BUCKETS,
});

/** Unfinished runs by status, and the oldest queued run's age: read by `RunGauges`. */
export const unfinishedRuns = new Gauge({
  name: 'flowmesh_runs_unfinished',
  help: 'Runs not yet finished, by status (queued, running, waiting, paused, waitingForPause, rollingBack).',
  labelNames: ['status'] as const,
});
export const oldestQueuedRunAge = new Gauge({
  name: 'flowmesh_runs_oldest_queued_age_seconds',
  help: 'Age of the oldest run waiting in the queue for a runner; 0 when none waits.',
});

export type StepOutcome = 'done' | 'waiting' | 'error';
export type FinalStatus = Extract<RunStatus, 'complete' | 'errored' | 'terminated'>;

export function runStarted(trigger: RunTrigger | 'rerun'): void {
  started.labels(trigger).inc();
}

/** A run reached a final status; its duration counts from its creation. */
export function runFinished(status: FinalStatus, createdAt: Date): void {
  finished.labels(status).inc();
  runSeconds.labels(status).observe(Math.max(0, Date.now() - createdAt.getTime()) / 1000);
}

/**
 * A run cancelled by request while no runner held it: `terminated` at once. Counted without a
 * duration, which only the runs the engine settles carry.
 */
export function runCancelled(): void {
  finished.labels('terminated').inc();
}

export function stepExecuted(nodeType: string, outcome: StepOutcome, began: number): void {
  stepSeconds.labels(nodeType, outcome).observe((performance.now() - began) / 1000);
}

export function isFinal(status: RunStatus): status is FinalStatus {
  return status === 'complete' || status === 'errored' || status === 'terminated';
}
