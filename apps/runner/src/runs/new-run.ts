import type { Diagram, Principal, RunTrigger } from '#contracts';

import { type RunRecord, type RunWithSteps, type StepRecord, stepRecord } from '../engine/run-state.js';
import type { HeldBy, RunFlow } from '../start/run-flow.js';

/** A run a start accepted, before it is written. */
export interface NewRun {
  id: string;
  organizationId: string;
  workflowId: string;
  workflowName: string;
  projectId: string;
  version: number | null;
  trigger: RunTrigger;
  triggerNodeId: string;
  createdBy: string | null;
  principal: Principal;
  input: string;
  diagram: Diagram;
  timeZone: string;
  idempotencyKey: string | null;
  /** The request the key stands for (`requestFingerprint`); null without a key. */
  idempotencyFingerprint: string | null;
  /** The trigger's step, done at once. */
  triggerOutput: Record<string, string>;
  /** The runner's clock, like every step's start: the run's steps never seem to start before it. */
  createdAt: Date;
  /** The run this one reruns; null for any other start. */
  rerunOf: string | null;
  /** The run's span (W3C `traceparent`), its steps' parent; null without tracing. */
  traceParent: string | null;
  /** The failed run this one handles, when started as an error workflow (or a rerun of one). */
  errorOfRunId: string | null;
  /** Where a child run stands under its parent; absent for any other run. */
  child?: ChildPlace;
  /** Its workflow's flow control and its organization's share (docs/flow-control.md). */
  flow: RunFlow;
}

/** A child run's parent, the step that started it, and its claim among that run's children. */
export interface ChildPlace {
  parentRunId: string;
  parentNodeId: string;
  /** Unique among the parent's children: `<nodeId>:<attempt>` for a called workflow, `<nodeId>#<index>` for a loop's iteration. */
  childKey: string;
  /** A loop iteration's index; null for a called workflow. */
  iteration: number | null;
  /** The parent's depth plus one. */
  depth: number;
}

/**
 * A run just written `queued` by `RunRepository.insert`, with its trigger step; `heldBy` the gate it
 * was held at, if any.
 */
export function queuedRunOf(run: NewRun, heldBy: HeldBy | null = null): RunWithSteps {
  return {
    run: { ...runRecordOf(run, 'queued', 0), heldBy, heldKey: heldKeyOf(run, heldBy) },
    steps: [triggerStepOf(run)],
  };
}

function heldKeyOf({ flow }: NewRun, heldBy: HeldBy | null): string | null {
  switch (heldBy) {
    case 'concurrency':
      return flow.concurrencyKey;
    case 'throttle':
      return flow.throttleKey;
    case 'debounce':
      return flow.debounceKey;
    case 'schedule':
    case 'share':
    case null:
      return null;
  }
}

/** The record of a run just written (nothing of it was read back). */
export function runRecordOf(run: NewRun, status: RunRecord['status'], leaseToken: number): RunRecord {
  return {
    id: run.id,
    organizationId: run.organizationId,
    workflowId: run.workflowId,
    workflowName: run.workflowName,
    projectId: run.projectId,
    version: run.version,
    trigger: run.trigger,
    triggerNodeId: run.triggerNodeId,
    status,
    createdBy: run.createdBy,
    principal: run.principal,
    input: run.input,
    reply: null,
    error: null,
    diagram: run.diagram,
    timeZone: run.timeZone,
    leaseToken,
    claims: leaseToken,
    createdAt: run.createdAt,
    rerunOf: run.rerunOf,
    rollbackEnd: null,
    traceParent: run.traceParent,
    errorOfRunId: run.errorOfRunId,
    errorWorkflow: null,
    parentRunId: run.child?.parentRunId ?? null,
    parentNodeId: run.child?.parentNodeId ?? null,
    iteration: run.child?.iteration ?? null,
    depth: run.child?.depth ?? 0,
    heldBy: null,
    heldKey: null,
    diagramTrimmedAt: null,
  };
}

/** A run starts at its trigger: that step is done at once, its output the run's input. */
export function triggerStepOf(run: NewRun): StepRecord {
  return stepRecord({
    nodeId: run.triggerNodeId,
    position: 0,
    status: 'done',
    output: run.triggerOutput,
    ms: 0,
    startedAt: run.createdAt,
  });
}
