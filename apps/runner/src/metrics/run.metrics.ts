import { RUN_SECONDS_BUCKETS, STEP_SECONDS_BUCKETS } from '#common';
import type { RunStatus, RunTrigger } from '#contracts';
import { Counter, Gauge, Histogram } from 'prom-client';

/**
 * The runs this runner starts, finishes and steps through. Labels are bounded by the contract's own
 * lists: triggers (plus `rerun`), final statuses, node types, step outcomes. A workflow, run or
 * organization id is never a label: per-workflow failures are the API's to answer (runs lists). The
 * one exception, `flowmesh_runs_held`, names at most 20 workflows, because the issue is which
 * workflow's runs pile up behind a limit.
 */
const started = new Counter({
  name: 'flowmesh_runs_started_total',
  help: 'Runs started, by trigger (manual, api, schedule, event, rerun, or iteration).',
  labelNames: ['trigger'] as const,
});
const finished = new Counter({
  name: 'flowmesh_runs_finished_total',
  help: 'Runs that reached a final status (complete, errored, terminated) on this runner, by status.',
  labelNames: ['status'] as const,
});
const runSeconds = new Histogram({
  name: 'flowmesh_run_duration_seconds',
  help: 'Time from a run being created to its final status, waits included, by final status.',
  labelNames: ['status'] as const,
  buckets: RUN_SECONDS_BUCKETS,
});
/** Every step attempt records here: the hot path, through the children kept below. */
const stepSeconds = new Histogram({
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

/**
 * Queued runs held back by flow control (docs/flow-control.md), by gate and workflow: the workflows
 * with the most held runs by name (at most `HELD_WORKFLOWS_LABELLED`), the rest together as `other`,
 * so the label stays bounded however many workflows hold runs back. Read by `RunGauges`.
 */
export const heldRuns = new Gauge({
  name: 'flowmesh_runs_held',
  help: 'Queued runs held back by flow control, by gate (debounce, throttle, concurrency, share) and workflow_id (the 20 workflows holding most; the rest as "other").',
  labelNames: ['gate', 'workflow_id'] as const,
});
export const HELD_WORKFLOWS_LABELLED = 20;

export type StepOutcome = 'done' | 'waiting' | 'error';
export type FinalStatus = Extract<RunStatus, 'complete' | 'errored' | 'terminated'>;

/**
 * prom-client's label children, made on a label value's first use and kept: `labels(...)` validates
 * and hashes its values, which every run and step would otherwise pay for again. The label values are
 * the bounded lists above, so these maps stay small.
 */
const startedByTrigger = new Map<string, Counter.Internal>();
const finishedByStatus = new Map<FinalStatus, Counter.Internal>();
const runSecondsByStatus = new Map<FinalStatus, Histogram.Internal<'status'>>();
/** By node type, then outcome. */
const stepSecondsByType = new Map<string, Map<StepOutcome, Histogram.Internal<'node_type' | 'outcome'>>>();

function finishedChild(status: FinalStatus): Counter.Internal {
  let child = finishedByStatus.get(status);
  if (!child) finishedByStatus.set(status, (child = finished.labels(status)));
  return child;
}

export function runStarted(trigger: RunTrigger | 'rerun' | 'iteration'): void {
  let child = startedByTrigger.get(trigger);
  if (!child) startedByTrigger.set(trigger, (child = started.labels(trigger)));
  child.inc();
}

/** A run reached a final status; its duration counts from its creation. */
export function runFinished(status: FinalStatus, createdAt: Date): void {
  finishedChild(status).inc();
  let seconds = runSecondsByStatus.get(status);
  if (!seconds) runSecondsByStatus.set(status, (seconds = runSeconds.labels(status)));
  seconds.observe(Math.max(0, Date.now() - createdAt.getTime()) / 1000);
}

/**
 * A run cancelled by request while no runner held it: `terminated` at once. Counted without a
 * duration, which only the runs the engine settles carry.
 */
export function runCancelled(): void {
  finishedChild('terminated').inc();
}

export function stepExecuted(nodeType: string, outcome: StepOutcome, began: number): void {
  let byOutcome = stepSecondsByType.get(nodeType);
  if (!byOutcome) stepSecondsByType.set(nodeType, (byOutcome = new Map()));
  let child = byOutcome.get(outcome);
  if (!child) byOutcome.set(outcome, (child = stepSeconds.labels(nodeType, outcome)));
  child.observe((performance.now() - began) / 1000);
}

export function isFinal(status: RunStatus): status is FinalStatus {
  return status === 'complete' || status === 'errored' || status === 'terminated';
}
