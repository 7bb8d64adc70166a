import type { Diagram, DiagramNode, Principal, RunTrigger } from '#contracts';

import type { TemplateScope } from '../templates/template.util.js';

/** What a step may know about its run. */
export interface StepRun {
  id: string;
  organizationId: string;
  workflowId: string;
  workflowName: string;
  projectId: string;
  version: number | null;
  trigger: RunTrigger;
  /** Who started the run: a step that calls another service acts for them. */
  principal: Principal;
  input: string;
  timeZone: string;
  /** The Trigger node the run started from (an action may use its app connection). */
  triggerNode: DiagramNode | null;
  /** The diagram as it runs (a loop's iterations run a part of it). */
  diagram: Diagram;
  createdBy: string | null;
  /** The run's span (W3C `traceparent`); null without tracing. */
  traceParent: string | null;
  /** 0 for a run nothing started; a child's is its parent's plus one (see `RUN_MAX_DEPTH`). */
  depth: number;
  /** On a child run: its parent run, the node that started it, and a loop iteration's index. */
  parentRunId: string | null;
  parentNodeId: string | null;
  iteration: number | null;
  /** The ids of the diagram's nodes: a code step reads the output of each one that is done. */
  nodeIds: readonly string[];
  /**
   * The failed run this run handles as an error workflow, or as part of one (a run such a run
   * started): the runs it starts carry it on, so none of their failures starts an error workflow.
   */
  errorOfRunId: string | null;
}

export interface StepContext {
  readonly run: StepRun;
  readonly node: DiagramNode;
  readonly properties: Readonly<Record<string, unknown>>;
  /** 1 for the first try. A step re-run after a crash keeps its attempt; a retry is the next one. */
  readonly attempt: number;
  /**
   * `<runId>:<nodeId>:<attempt>`: a step with effects elsewhere passes it on, so a re-run after a
   * crash (at least once) can be recognised by the other side.
   */
  readonly idempotencyKey: string;
  /**
   * The run whose cancel stops this step's work in the service doing it (sent as `runId`); null for
   * a compensation, which runs after its run was cancelled, on purpose.
   */
  readonly stoppedByCancelOf: string | null;
  /** True when an earlier execution of this attempt was cut off while it ran (its runner died). */
  readonly interrupted: boolean;
  /** What the step returned with `waiting` the last time, or null on a first execution. */
  readonly state: unknown;
  /** When the step first started (kept across waits and retries). */
  readonly startedAt: Date;
  /** Aborted when the runner loses the run (termination, lease taken over, shutdown). */
  readonly signal: AbortSignal;
  /** The text of the steps whose edges fired into this one, joined with a blank line. */
  readonly previousText: string;
  /** What the step's templates read: the run's input and the outputs of the steps done so far. */
  readonly scope: TemplateScope;
  /**
   * Renders one property's templates within the step's limits; past one the step fails with a
   * StepFailure naming the node and `property` (`conditions[0].left`, `until`).
   */
  render(template: string, property: string): string;
  /** Renders every string leaf of a JSON value, each named from `property` (`input.body`). */
  renderDeep(value: unknown, property: string): unknown;
  now(): Date;
}

export type StepResult =
  /** `route`: only edges with this `sourceHandle` fire (a condition); absent: every edge fires. */
  | { status: 'done'; output: Record<string, string>; route?: string }
  /**
   * The run sleeps durably until `until` (or until something wakes the step sooner); the step is
   * then executed again with `state`. `output`: what the step shows while it waits.
   */
  | { status: 'waiting'; until: Date; state: unknown; output?: Record<string, string> };

/** A step ready to run: its rendered input is recorded before `run` is called. */
export interface PreparedStep {
  /** The step's input as recorded: what it acts on, templates rendered. */
  input: string | null;
  run(): Promise<StepResult>;
}

/**
 * One node type's behaviour. The engine knows nothing of node types beyond this interface: a new
 * type is a new executor, registered with `@NodeExecutorProvider()`.
 */
export interface NodeExecutor {
  readonly type: string;
  /**
   * True when running the step has no effect outside the run (a decision, a wait): after a crash it
   * is simply run again, so the engine records its start together with the next checkpoint instead
   * of making a round trip before it. Steps with effects elsewhere are recorded `running` first.
   */
  readonly pure: boolean;
  /**
   * True when a pure step may take long (a code step: up to its time cap, after a wait for a free
   * worker). A run not on record yet (its runner started executing it at once) is then recorded,
   * with the step `running`, once the step has run for 50 ms: otherwise its first checkpoint, and so
   * the answer to its start, would wait for the step to end.
   */
  readonly mayTakeLong?: boolean;
  /** The output field that is the node's text (for `reply` and the next step), or null for none. */
  readonly textField: string | null;
  /** Renders the node's templates; throws StepFailure when the properties cannot be used. */
  prepare(context: StepContext): PreparedStep;
  /**
   * True when a step of this type, waiting with the `state` its `run` returned, waits on someone's
   * decision rather than on time: its `until` is only when the decision expires. The state is null
   * while the step waits for a retry, a wait on time. Absent: every wait of the type is on time.
   */
  awaitsDecision?(state: unknown): boolean;
}

/** A failure the step's author can act on: its message becomes the step's and the run's error. */
export class StepFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StepFailure';
  }
}

/** A step's input as text: strings as they are, anything else as JSON. */
export function inputText(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
