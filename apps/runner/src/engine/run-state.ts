import type { Diagram, ErrorWorkflowOutcome, Principal, RunTrigger, StepStatus } from '#contracts';

import type { HeldBy } from '../start/run-flow.js';

/** The stored status: a subset of the contract's, since `unknown` is computed when read. */
export type StoredRunStatus =
  | 'queued'
  | 'running'
  | 'waiting'
  | 'complete'
  | 'errored'
  | 'terminated'
  | 'paused'
  | 'waitingForPause'
  | 'rollingBack';

/** A run as the engine and the readers see it (the row minus bookkeeping nobody reads). */
export interface RunRecord {
  id: string;
  organizationId: string;
  workflowId: string;
  workflowName: string;
  projectId: string;
  version: number | null;
  trigger: RunTrigger;
  triggerNodeId: string | null;
  status: StoredRunStatus;
  createdBy: string | null;
  principal: Principal;
  input: string;
  reply: string | null;
  error: string | null;
  diagram: Diagram;
  timeZone: string;
  leaseToken: number;
  claims: number;
  createdAt: Date;
  /** The run this one reruns; null for any other run. */
  rerunOf: string | null;
  /** Set while `rollingBack`: what the run ends as once its compensations ran. */
  rollbackEnd: 'errored' | 'terminated' | null;
  /** The span the run's steps are children of (W3C `traceparent`); null without tracing. */
  traceParent: string | null;
  /** Started as its workflow's error workflow: the failed run it handles. Null for any other run. */
  errorOfRunId: string | null;
  /** Failed, with an error workflow: what starting it came to; null until then, and on other runs. */
  errorWorkflow: ErrorWorkflowOutcome | null;
  /** A child run's parent run, whose step `parentNodeId` started it; null for any other run. */
  parentRunId: string | null;
  parentNodeId: string | null;
  /** A loop iteration's index; null for any other run. */
  iteration: number | null;
  /** 0 for a run nothing started; a child's is its parent's plus one (at most `RUN_MAX_DEPTH`). */
  depth: number;
  /** A queued run not let through yet: the gate it waits at (docs/flow-control.md); null otherwise. */
  heldBy: HeldBy | null;
  /** The key of that gate (its rendered `key`, `""` without one); null when no workflow gate holds it. */
  heldKey: string | null;
  /** When retention trimmed the diagram to its nodes and edges (docs/retention.md); null while whole. */
  diagramTrimmedAt: Date | null;
}

export interface StepRecord {
  nodeId: string;
  position: number;
  status: StepStatus;
  via: string[];
  input: string | null;
  output: Record<string, string> | null;
  error: string | null;
  ms: number | null;
  startedAt: Date;
  attempt: number;
  route: string | null;
  state: unknown;
  wakeAt: Date | null;
  /** A compensation: the step that undoes the `done` step of the same node while rolling back. */
  compensation: boolean;
  /** On a rerun, the run this step was carried over from (done there, not executed again). */
  carriedFrom: string | null;
  /** When retention dropped its input, output and state (docs/retention.md); null while whole. */
  payloadTrimmedAt: Date | null;
}

/** A step as it starts: the fields `fields` does not give are those of a step nothing has happened to. */
export function stepRecord(
  fields: Pick<StepRecord, 'nodeId' | 'position' | 'status' | 'startedAt'> & Partial<StepRecord>,
): StepRecord {
  return {
    via: [],
    input: null,
    output: null,
    error: null,
    ms: null,
    attempt: 1,
    route: null,
    state: null,
    wakeAt: null,
    compensation: false,
    carriedFrom: null,
    payloadTrimmedAt: null,
    ...fields,
  };
}

export interface RunWithSteps {
  run: RunRecord;
  steps: StepRecord[];
}

/** How a checkpoint ends the runner's hold on a run. */
export type RunSettlement =
  | { status: 'complete'; reply: string }
  | { status: 'errored'; error: string }
  | { status: 'waiting'; wakeAt: Date }
  /** Asked to pause, and every step that was running has ended; `wakeAt` of its earliest wait. */
  | { status: 'paused'; wakeAt: Date | null }
  /** Cancelled with a rollback, once its compensations ran. */
  | { status: 'terminated'; error: string };

/** A run some runner holds under a lease (the statuses a holder's checkpoint may write to). */
export const HELD_STATUSES = [
  'running',
  'waitingForPause',
  'rollingBack',
] as const satisfies readonly StoredRunStatus[];

/** The run was terminated or another runner took it over: nothing this runner writes counts now. */
export class LeaseLost extends Error {
  constructor(message = 'the run is no longer held by this runner') {
    super(message);
    this.name = 'LeaseLost';
  }
}

/** The run's workflow was deleted after its start read it: the run was never recorded. */
export class WorkflowDeleted extends LeaseLost {
  constructor() {
    super('the workflow was deleted before the run was recorded');
    this.name = 'WorkflowDeleted';
  }
}
