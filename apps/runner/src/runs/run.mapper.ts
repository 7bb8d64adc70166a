import { type Expression, type Insertable, type Selectable, sql, type Updateable } from 'kysely';

import type { RunRecord, RunSettlement, RunWithSteps, StepRecord } from '../engine/run-state.js';
import { watchesEnd } from '../endings/watches-end.js';
import type { RunnerRuns, RunnerRunSteps } from '../runner.tables.js';
import type { NewRun } from './new-run.js';

/**
 * The `runner.runs` columns a `RunRecord` is read from (the table as `r`), each named as its field:
 * the row a query answers is the record. A column the record gains is one line here.
 */
export const RUN_RECORD_COLUMNS = [
  'r.id',
  'r.organization_id as organizationId',
  'r.workflow_id as workflowId',
  'r.workflow_name as workflowName',
  'r.project_id as projectId',
  'r.version',
  'r.trigger',
  'r.trigger_node_id as triggerNodeId',
  'r.status',
  'r.created_by as createdBy',
  'r.principal',
  'r.input',
  'r.reply',
  'r.error',
  'r.diagram',
  'r.time_zone as timeZone',
  'r.lease_token as leaseToken',
  'r.claims',
  'r.created_at as createdAt',
  'r.rerun_of as rerunOf',
  'r.rollback_end as rollbackEnd',
  'r.trace_parent as traceParent',
  'r.error_of_run_id as errorOfRunId',
  'r.error_workflow as errorWorkflow',
  'r.parent_run_id as parentRunId',
  'r.parent_node_id as parentNodeId',
  'r.iteration',
  'r.depth',
  'r.held_by as heldBy',
  sql<string | null>`CASE r.held_by WHEN 'concurrency' THEN r.concurrency_key
    WHEN 'throttle' THEN r.throttle_key WHEN 'debounce' THEN r.debounce_key END`.as('heldKey'),
  'r.diagram_trimmed_at as diagramTrimmedAt',
] as const;

/**
 * The columns a run's start writes from what it accepted; each write adds the columns of its own
 * (status, lease). A column the start writes is one line here.
 */
export function newRunRow(run: NewRun): Omit<Insertable<RunnerRuns>, 'status'> {
  return {
    id: run.id,
    organization_id: run.organizationId,
    workflow_id: run.workflowId,
    workflow_name: run.workflowName,
    project_id: run.projectId,
    version: run.version,
    trigger: run.trigger,
    trigger_node_id: run.triggerNodeId,
    created_by: run.createdBy,
    principal: JSON.stringify(run.principal),
    input: run.input,
    diagram: JSON.stringify(run.diagram),
    time_zone: run.timeZone,
    idempotency_key: run.idempotencyKey,
    idempotency_fingerprint: run.idempotencyFingerprint,
    created_at: run.createdAt,
    rerun_of: run.rerunOf,
    trace_parent: run.traceParent,
    error_of_run_id: run.errorOfRunId,
    // A loop iteration runs a part of its parent's diagram: its end is its parent's step's business.
    watch_end: (run.child?.iteration ?? null) === null && watchesEnd(run.diagram),
    parent_run_id: run.child?.parentRunId ?? null,
    parent_node_id: run.child?.parentNodeId ?? null,
    child_key: run.child?.childKey ?? null,
    iteration: run.child?.iteration ?? null,
    depth: run.child?.depth ?? 0,
    priority: run.flow.priority,
    concurrency_key: run.flow.concurrencyKey,
    concurrency_limit: run.flow.concurrencyLimit,
    throttle_key: run.flow.throttleKey,
    throttle_limit: run.flow.throttleLimit,
    throttle_period_s: run.flow.throttlePeriodS,
    debounce_key: run.flow.debounceKey,
    release_at: run.flow.releaseAt,
    share: run.flow.share,
  };
}

/** Each column's value, or an SQL expression of it (`now()`). */
export type Written<T> = { [C in keyof T]: T[C] | Expression<Exclude<T[C], undefined>> };

/** The columns of `runner.runs` a write sets; the status as a value. */
export type RunColumns = Written<Omit<Updateable<RunnerRuns>, 'status'>> & { status?: RunRecord['status'] };

export const now = () => sql<Date>`now()`;

/** When a lease taken or renewed now runs out, by the database's clock (every runner shares it). */
export const leaseEnd = (leaseMs: number | Expression<number>) =>
  sql<Date>`now() + make_interval(secs => ${leaseMs} / 1000.0)`;

/**
 * The run's columns as a write by its holder leaves them: still held, its lease renewed, or settled
 * by `settlement`, which ends the hold.
 */
export function heldOrSettled(
  settlement: RunSettlement | undefined,
  leaseMs: number | Expression<number>,
): RunColumns {
  switch (settlement?.status) {
    case undefined:
      return { lease_expires_at: leaseEnd(leaseMs), wake_at: null };
    case 'complete':
      return {
        status: 'complete',
        reply: settlement.reply,
        lease_expires_at: null,
        wake_at: null,
        finished_at: now(),
      };
    case 'errored':
      return {
        status: 'errored',
        error: settlement.error,
        lease_expires_at: null,
        wake_at: null,
        finished_at: now(),
      };
    // A run that settles to wait made progress: the pick-ups that count against RUNNER_MAX_CLAIMS
    // (a run picked up again and again without settling is crash-looping) start over.
    case 'waiting':
      return { status: 'waiting', lease_expires_at: null, wake_at: settlement.wakeAt, claims: 0 };
    case 'paused':
      return { status: 'paused', lease_expires_at: null, wake_at: settlement.wakeAt, claims: 0 };
    case 'terminated':
      return {
        status: 'terminated',
        error: settlement.error,
        lease_expires_at: null,
        wake_at: null,
        finished_at: now(),
      };
  }
}

/** A value as JSON spells it: a timestamp is its ISO text. */
type JsonOf<T> = T extends Date ? string : T;

/** A `runner.run_steps` row as JSON: what `json_agg` answers and what a checkpoint sends. */
export type StepJson = { [C in keyof Selectable<RunnerRunSteps>]: JsonOf<Selectable<RunnerRunSteps>[C]> };

export function toStepRecord(json: StepJson): StepRecord {
  return {
    nodeId: json.node_id,
    position: json.position,
    status: json.status,
    via: json.via,
    input: json.input,
    output: json.output,
    error: json.error,
    ms: json.ms,
    startedAt: new Date(json.started_at),
    attempt: json.attempt,
    route: json.route,
    state: json.state,
    wakeAt: json.wake_at === null ? null : new Date(json.wake_at),
    compensation: json.compensation,
    carriedFrom: json.carried_from,
    payloadTrimmedAt: json.payload_trimmed_at === null ? null : new Date(json.payload_trimmed_at),
  };
}

export function toStepJson(runId: string, step: StepRecord): StepJson {
  return {
    run_id: runId,
    node_id: step.nodeId,
    position: step.position,
    status: step.status,
    via: step.via,
    input: step.input,
    output: step.output,
    error: step.error,
    ms: step.ms,
    started_at: step.startedAt.toISOString(),
    attempt: step.attempt,
    route: step.route,
    state: step.state ?? null,
    wake_at: step.wakeAt?.toISOString() ?? null,
    compensation: step.compensation,
    carried_from: step.carriedFrom,
    payload_trimmed_at: step.payloadTrimmedAt?.toISOString() ?? null,
  };
}

/** A run read with `RUN_RECORD_COLUMNS` and its steps as one JSON value. */
export function toRunWithSteps({ steps, ...run }: RunRecord & { steps: StepJson[] }): RunWithSteps {
  return { run, steps: steps.map(toStepRecord) };
}
