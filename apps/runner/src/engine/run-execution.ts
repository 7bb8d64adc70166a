import { setTimeout as sleep } from 'node:timers/promises';

import {
  contextOfTraceParent,
  DomainException,
  inSpan,
  SERVICE_ATTRIBUTE,
  type Span,
  SpanStatusCode,
} from '#common';
import type { DiagramNode } from '#contracts';

import {
  type NodeExecutor,
  type PreparedStep,
  type StepContext,
  StepFailure,
  type StepResult,
  type StepRun,
} from '../executors/node-executor.js';
import { isFinal, runFinished, stepExecuted } from '../metrics/run.metrics.js';
import { StepTemplates } from '../templates/step-templates.js';
import { layeredOutputs, type TemplateScope, toText } from '../templates/template.util.js';
import { CheckpointWriter, type FirstWrite } from './checkpoint-writer.js';
import type { EngineResources } from './engine-resources.js';
import { replyText } from './reply.util.js';
import {
  compensateOf,
  compensationOrder,
  compensationRetryOf,
  rollbackError,
  rollsBackOnError,
} from './rollback.util.js';
import { RunGraph } from './run-graph.js';
import { cutError, keptBytes, limitFailures, outputBytes } from './run-limits.util.js';
import {
  LeaseLost,
  type RunRecord,
  type RunSettlement,
  type RunWithSteps,
  type StepRecord,
  stepRecord,
} from './run-state.js';
import {
  claimsExhausted,
  decideNode,
  edgeFires,
  nextAttemptAt,
  retryPolicyOf,
} from './step-decision.util.js';

/**
 * How long a step that may take long (`mayTakeLong`) runs before a run not on record yet is recorded
 * with it `running`: a trivial code step ends well within it and costs no extra checkpoint.
 */
const LONG_STEP_MS = 50;

/** True when `promise` settles within `ms`, either way. */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    late,
  ]).finally(() => clearTimeout(timer));
}

export type ExecutionEnd =
  /** The run is complete, errored or waiting, and recorded so. */
  | { kind: 'settled'; settlement: RunSettlement }
  /** The run was terminated or taken over: nothing of this execution counts. */
  | { kind: 'lost' }
  /** This runner is stopping: the run goes back to the queue from its last checkpoint. */
  | { kind: 'handedBack' };

/** The output field of a loop iteration's first step (its loop node's) that is its text: the item. */
const ITERATION_TEXT_FIELD = 'item';

type Stop = { kind: 'lost' } | { kind: 'handedBack' } | { kind: 'failed'; error: unknown };

/**
 * One claimed run, walked from its checkpoints to the next point where it settles: every node the
 * run can still reach is started once all edges into it are settled, branches run concurrently, and
 * each step is recorded through the checkpoint writer. Steps already `done` are never run again.
 *
 * Asked to pause (`waitingForPause`), it starts nothing new, lets the steps in flight end (and runs
 * again those a crash cut off), then settles `paused`. Rolling back (`rollingBack`: the run failed
 * and its diagram says `onError: "rollback"`, or it was cancelled with a rollback), it runs the
 * `compensate` of each `done` action, newest first, one at a time, each recorded as a step of its own.
 */
export class RunExecution {
  private readonly graph: RunGraph | null;
  private readonly steps = new Map<string, StepRecord>();
  private readonly outputs = new Map<string, Record<string, string>>();
  private scope: TemplateScope;
  private readonly inflight = new Map<string, Promise<void>>();
  /** Steps this execution started: any other step found `running` was cut off by a crash. */
  private readonly started = new Set<string>();
  private readonly abort = new AbortController();
  private readonly checkpoints: CheckpointWriter;
  private readonly stepRun: StepRun;
  /** What each step counts against the run's data limit, and their sum. */
  private readonly kept = new Map<string, number>();
  private keptTotal = 0;
  /** Compensations by the node whose step they undo. */
  private readonly compensations = new Map<string, StepRecord>();
  private nextPosition = 0;
  private failure: { nodeId: string; message: string } | undefined;
  private pausing: boolean;
  private stop: Stop | undefined;
  private wake: () => void = () => undefined;

  /**
   * `firstWrite`: the run is not on record yet (its runner accepted it and executes it at once); its
   * first checkpoint writes the run row with the steps so far.
   */
  constructor(
    private readonly resources: EngineResources,
    private readonly run: RunRecord,
    steps: readonly StepRecord[],
    { firstWrite }: { firstWrite?: FirstWrite } = {},
  ) {
    const start = run.triggerNodeId;
    this.graph =
      start !== null && run.diagram.nodes.some((node) => node.id === start)
        ? RunGraph.of(run.diagram, start)
        : null;
    this.pausing = run.status === 'waitingForPause';
    for (const step of steps) {
      this.nextPosition = Math.max(this.nextPosition, step.position + 1);
      if (step.compensation) {
        this.compensations.set(step.nodeId, { ...step });
        continue;
      }
      this.steps.set(step.nodeId, { ...step });
      if (step.status === 'done' && step.output) this.outputs.set(step.nodeId, step.output);
      if (step.status === 'error') this.failure ??= { nodeId: step.nodeId, message: step.error ?? 'failed' };
      this.nextPosition = Math.max(this.nextPosition, step.position + 1);
      this.keep(step.nodeId, keptBytes(step, this.replyTextOf(step)));
    }
    this.scope = { input: run.input, outputs: this.outputs };
    this.checkpoints = new CheckpointWriter(
      resources.runs,
      run.id,
      run.leaseToken,
      resources.settings.leaseMs,
      (status) => resources.changed(run.id, status),
      firstWrite,
      (status) => {
        if (status === 'waitingForPause') this.requestPause();
      },
    );
    this.stepRun = {
      id: run.id,
      organizationId: run.organizationId,
      workflowId: run.workflowId,
      workflowName: run.workflowName,
      projectId: run.projectId,
      version: run.version,
      trigger: run.trigger,
      principal: run.principal,
      input: run.input,
      timeZone: run.timeZone,
      triggerNode: run.diagram.nodes.find((node) => node.id === run.triggerNodeId) ?? null,
      diagram: run.diagram,
      createdBy: run.createdBy,
      traceParent: run.traceParent,
      depth: run.depth,
      parentRunId: run.parentRunId,
      parentNodeId: run.parentNodeId,
      iteration: run.iteration,
      nodeIds: run.diagram.nodes.map((node) => node.id),
      errorOfRunId: run.errorOfRunId,
    };
  }

  /** Walks the run until it settles; throws only when its checkpoints cannot be written. */
  async execute(): Promise<ExecutionEnd> {
    if (!this.graph) {
      return this.settle({ status: 'errored', error: `The run's trigger node is not in its diagram.` });
    }
    if (claimsExhausted(this.run.claims, this.resources.settings.maxClaims)) {
      return this.settle({
        status: 'errored',
        error: `The run was interrupted ${this.run.claims - 1} times before it could finish; it was stopped.`,
      });
    }
    await this.inherit();
    if (this.run.status === 'rollingBack') return this.rollBack(this.graph);
    for (;;) {
      if (this.stop) break;
      if (!this.failure) this.startReadySteps(this.graph);
      if (this.inflight.size === 0) break;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        for (const task of this.inflight.values()) void task.then(resolve);
      });
    }
    if (this.stop) return this.stopped(this.stop);
    if (this.failure && rollsBackOnError(this.run.diagram)) return this.rollBackFailure(this.graph);
    return this.settle(this.settlementOf(this.graph));
  }

  /**
   * A loop iteration's templates read its own steps, then the steps of the runs around it and their
   * input (`InheritedScopes`); `{{loop.…}}` is its start node's step, the item.
   */
  private async inherit(): Promise<void> {
    if (this.run.iteration === null || this.run.triggerNodeId === null) return;
    const inherited = await this.resources.inheritedScope(this.run);
    if (!inherited) return;
    this.scope = {
      input: inherited.input,
      outputs: layeredOutputs(this.outputs, inherited.outputs),
      loopNodeId: this.run.triggerNodeId,
    };
    this.stepRun.input = inherited.input;
  }

  /** The run is rolling back: its compensations run, whatever is asked of it. */
  get rollingBack(): boolean {
    return this.run.status === 'rollingBack';
  }

  /** Asked to pause: nothing new starts; the run settles `paused` once the steps in flight end. */
  requestPause(): void {
    if (this.pausing || this.run.status === 'rollingBack') return;
    this.pausing = true;
    this.resources.logger.debug({ runId: this.run.id }, 'pausing the run');
  }

  private stopped(stop: Stop): ExecutionEnd {
    this.checkpoints.close(stop.kind === 'failed' ? stop.error : new LeaseLost());
    this.abort.abort();
    if (stop.kind === 'failed') throw stop.error;
    return stop;
  }

  /**
   * The run failed and its diagram rolls back: it is `rollingBack` (with the failure as its error,
   * and `errored` to end as) before any compensation starts, so a crash from here on resumes the
   * rollback rather than the run.
   */
  private async rollBackFailure(graph: RunGraph): Promise<ExecutionEnd> {
    const error = this.failure?.message ?? 'failed';
    try {
      await this.checkpoints.flush();
      const held = await this.resources.runs.beginRollback(
        this.run.id,
        this.run.leaseToken,
        error,
        'errored',
      );
      if (!held) throw new LeaseLost();
    } catch (thrown) {
      if (thrown instanceof LeaseLost) return this.stopped({ kind: 'lost' });
      throw thrown;
    }
    Object.assign(this.run, {
      status: 'rollingBack',
      error,
      rollbackEnd: 'errored',
    } satisfies Partial<RunRecord>);
    this.resources.changed(this.run.id, 'rollingBack');
    return this.rollBack(graph);
  }

  /**
   * Runs the compensations still to run, one at a time, newest completed step first; a compensation
   * that fails after its retries is reported in the run's error and the rest still run. Then the run
   * ends as `rollbackEnd` says: `errored` after a failure, `terminated` after a cancel.
   */
  private async rollBack(graph: RunGraph): Promise<ExecutionEnd> {
    const order = compensationOrder(this.steps.values(), (id) =>
      graph.has(id) ? graph.node(id) : undefined,
    );
    try {
      for (const step of order) {
        if (this.stop) break;
        const earlier = this.compensations.get(step.nodeId);
        if (earlier?.status === 'done' || earlier?.status === 'error') continue;
        const node = graph.node(step.nodeId);
        await this.traced(
          earlier ?? { ...step, compensation: true },
          node,
          () => this.compensate(node, earlier),
          () => this.compensations.get(node.id),
        );
      }
    } catch (error) {
      if (!this.stop) this.halt(error instanceof LeaseLost ? { kind: 'lost' } : { kind: 'failed', error });
    }
    if (this.stop) return this.stopped(this.stop);
    const error = rollbackError(this.run.error ?? 'The run was stopped.', this.compensations.values());
    return this.settle(
      this.run.rollbackEnd === 'terminated' ? { status: 'terminated', error } : { status: 'errored', error },
    );
  }

  /**
   * One compensation: recorded `running` before it acts, like any step with effects, and retried in
   * place per its `retry`. Its idempotency key is `<runId>:<nodeId>:compensate:<attempt>`.
   */
  private async compensate(node: DiagramNode, earlier: StepRecord | undefined): Promise<void> {
    const compensate = compensateOf(node) ?? {};
    const policy = compensationRetryOf(compensate);
    const executor = this.resources.executors.get('action');
    const step: StepRecord = earlier ?? {
      ...this.blankStep(node.id, 'running', this.resources.now()),
      compensation: true,
    };
    this.compensations.set(node.id, step);
    const undoing: DiagramNode = { ...node, data: { ...node.data, type: 'action', properties: compensate } };
    for (;;) {
      let failure: unknown;
      try {
        if (!executor)
          throw new StepFailure('This runner cannot execute actions, so it cannot run compensations.');
        const prepared = executor.prepare(
          this.contextFor(undoing, step, `${this.run.id}:${node.id}:compensate:${step.attempt}`),
        );
        Object.assign(step, { status: 'running', input: prepared.input } satisfies Partial<StepRecord>);
        this.checkpoints.stage(step);
        await this.checkpoints.flush();
        const result = await prepared.run();
        if (this.stop) return;
        if (result.status !== 'done')
          throw new StepFailure('A compensation cannot wait; it must finish at once.');
        const output = Object.fromEntries(
          Object.entries(result.output).map(([field, value]) => [field, toText(value)]),
        );
        const refused = this.compensationRefusal(node, step.input, output);
        if (refused) throw refused;
        Object.assign(step, {
          status: 'done',
          output,
          error: null,
          ms: this.elapsed(step),
        } satisfies Partial<StepRecord>);
        this.checkpoints.stage(step);
        await this.checkpoints.flush();
        return;
      } catch (error) {
        if (error instanceof LeaseLost || this.stop)
          throw error instanceof LeaseLost ? error : new LeaseLost();
        failure = error;
      }
      const message = cutError(this.messageOf(failure, node));
      const retries = policy !== null && step.attempt <= policy.attempts;
      Object.assign(step, {
        status: retries ? 'running' : 'error',
        error: message,
        attempt: retries ? step.attempt + 1 : step.attempt,
        ms: retries ? null : this.elapsed(step),
      } satisfies Partial<StepRecord>);
      this.checkpoints.stage(step);
      await this.checkpoints.flush();
      if (!retries) return;
      await sleep(policy.backoffSeconds * 1000, undefined, { signal: this.abort.signal }).catch(
        () => undefined,
      );
      if (this.stop) return;
    }
  }

  /** A compensation's output past the step's or the run's limit keeps only its error. */
  private compensationRefusal(
    node: DiagramNode,
    input: string | null,
    output: Record<string, string>,
  ): StepFailure | undefined {
    const { stepOutputMaxBytes, runDataMaxBytes } = this.resources.settings.limits;
    const bytes = outputBytes(output);
    if (bytes > stepOutputMaxBytes) {
      return new StepFailure(limitFailures.output(node.id, bytes, stepOutputMaxBytes));
    }
    const key = `compensation:${node.id}`;
    const kept = keptBytes({ input, output, error: null }, null);
    const total = this.keptWith(key, kept);
    if (total > runDataMaxBytes) return new StepFailure(limitFailures.run(node.id, total, runDataMaxBytes));
    this.keep(key, kept);
    return undefined;
  }

  /** Settles once the run is on record: at its first checkpoint, or at once for a claimed run. */
  get durable(): Promise<void> {
    return this.checkpoints.durable;
  }

  /** The run and its steps as this execution knows them now. */
  snapshot(): RunWithSteps {
    const steps = [...this.steps.values(), ...this.compensations.values()];
    const settled = this.checkpoints.settlement;
    return {
      run: {
        ...this.run,
        status: settled?.status ?? 'running',
        reply: settled?.status === 'complete' ? settled.reply : null,
        error: settled?.status === 'errored' ? settled.error : null,
      },
      steps: steps.sort((a, b) => a.position - b.position).map((step) => ({ ...step, via: [...step.via] })),
    };
  }

  /** The run was terminated or taken over (the lease could not be renewed). */
  lose(): void {
    this.halt({ kind: 'lost' });
  }

  /** The runner is shutting down: stop at once and let another runner continue. */
  handBack(): void {
    this.halt({ kind: 'handedBack' });
  }

  private halt(stop: Stop): void {
    this.stop ??= stop;
    this.abort.abort();
    this.wake();
  }

  private startReadySteps(graph: RunGraph): void {
    const now = this.resources.now();
    let progressed = true;
    while (progressed && !this.stop) {
      progressed = false;
      for (const nodeId of graph.order) {
        // A pure step fails within its launch: once one has, nothing more starts, not even in this
        // pass (a thousand ready steps each preparing a large input would otherwise all do so).
        if (this.failure) return;
        if (this.inflight.has(nodeId)) continue;
        const step = this.steps.get(nodeId);
        if (step) {
          // A `running` step was cut off by a crash and runs again; a `waiting` one runs once due.
          const due =
            step.status === 'running' ||
            (!this.pausing && step.status === 'waiting' && (step.wakeAt === null || step.wakeAt <= now));
          if (due) this.launch(graph, step);
          continue;
        }
        if (this.pausing) continue;
        const decision = decideNode(graph.incoming(nodeId), (id) => this.steps.get(id));
        if (decision.kind === 'blocked') continue;
        const fresh = this.newStep(nodeId, decision.kind === 'skip' ? 'skipped' : 'running', now);
        if (decision.kind === 'skip') {
          this.checkpoints.stage(fresh);
          progressed = true;
        } else {
          fresh.via = decision.via;
          this.launch(graph, fresh);
        }
      }
    }
  }

  private newStep(nodeId: string, status: 'running' | 'skipped', now: Date): StepRecord {
    const step = this.blankStep(nodeId, status, now);
    this.steps.set(nodeId, step);
    this.started.add(nodeId);
    return step;
  }

  private blankStep(nodeId: string, status: 'running' | 'skipped', now: Date): StepRecord {
    return stepRecord({ nodeId, position: this.nextPosition++, status, startedAt: now });
  }

  private launch(graph: RunGraph, step: StepRecord): void {
    const task = this.runStep(graph, step, graph.node(step.nodeId))
      .catch((error: unknown) => {
        if (this.stop) return;
        this.halt(error instanceof LeaseLost ? { kind: 'lost' } : { kind: 'failed', error });
      })
      .finally(() => this.inflight.delete(step.nodeId));
    this.inflight.set(step.nodeId, task);
  }

  /**
   * A span per step execution (docs/tracing.md), child of the run's span whichever runner executes
   * it, so a run taken over after a restart stays one trace; the step's own requests are its children.
   */
  private traced(
    step: StepRecord,
    node: DiagramNode,
    work: () => Promise<void>,
    outcome: () => StepRecord | undefined = () => step,
  ): Promise<void> {
    return inSpan(
      `step ${node.data.type}`,
      {
        // A run started without tracing has no span: its steps join the job's (or nothing).
        ...(this.run.traceParent ? { parent: contextOfTraceParent(this.run.traceParent) } : {}),
        attributes: {
          [SERVICE_ATTRIBUTE]: 'runner',
          'flowmesh.run.id': this.run.id,
          'flowmesh.node.id': node.id,
          'flowmesh.node.type': node.data.type,
          'flowmesh.step.attempt': step.attempt,
          ...(step.compensation ? { 'flowmesh.step.compensation': true } : {}),
        },
      },
      async (span) => {
        await work();
        endStepSpan(span, outcome(), this.stop !== undefined);
      },
    );
  }

  private runStep(graph: RunGraph, step: StepRecord, node: DiagramNode): Promise<void> {
    return this.traced(step, node, () => this.executeStep(graph, step, node));
  }

  private async executeStep(graph: RunGraph, step: StepRecord, node: DiagramNode): Promise<void> {
    const executor = this.resources.executors.get(node.data.type);
    if (!executor) {
      await this.stepFailed(
        step,
        node,
        null,
        new StepFailure(`Node "${node.id}" has type "${node.data.type}", which this runner cannot execute.`),
      );
      return;
    }
    let prepared: PreparedStep;
    try {
      prepared = executor.prepare(
        this.contextFor(
          node,
          step,
          `${this.run.id}:${node.id}:${step.attempt}`,
          this.previousTextOf(graph, step),
        ),
      );
    } catch (error) {
      await this.stepFailed(step, node, executor, error);
      return;
    }
    const inputRefused = this.inputRefusal(step, node, prepared.input);
    if (inputRefused) {
      await this.stepFailed(step, node, executor, inputRefused);
      return;
    }
    step.status = 'running';
    step.input = prepared.input;
    step.error = null;
    this.keep(step.nodeId, keptBytes(step, null));
    if (!executor.pure) {
      // Effects elsewhere: the step is durably `running` before it acts.
      this.checkpoints.stage(step);
      await this.checkpoints.flush();
    }
    let result: StepResult;
    const began = performance.now();
    // An executor's `run` may throw before it returns its promise: that is its rejection here.
    const running = new Promise<StepResult>((resolve) => resolve(prepared.run()));
    if (executor.mayTakeLong && !this.checkpoints.onRecord && !(await settlesWithin(running, LONG_STEP_MS))) {
      // The run's start is answered once the run is on record: a long pure step must not hold that.
      this.checkpoints.stage(step);
      await this.checkpoints.flush();
    }
    try {
      result = await running;
      stepExecuted(node.data.type, result.status, began);
    } catch (error) {
      stepExecuted(node.data.type, 'error', began);
      if (this.stop) return;
      await this.stepFailed(step, node, executor, error);
      return;
    }
    // A result that arrives after the run was lost or handed back is dropped.
    if (this.stop) return;
    const output = Object.fromEntries(
      Object.entries(result.output ?? {}).map(([field, value]) => [field, toText(value)]),
    );
    const route = result.status === 'done' ? (result.route ?? null) : null;
    // Checked before anything of it is kept: a step past a limit keeps only its error.
    const outputRefused = this.outputRefusal(step, node, output, { status: result.status, route });
    if (outputRefused) {
      await this.stepFailed(step, node, executor, outputRefused);
      return;
    }
    if (result.status === 'done') {
      Object.assign(step, {
        status: 'done',
        output,
        route,
        error: null,
        ms: this.elapsed(step),
        state: null,
        wakeAt: null,
      } satisfies Partial<StepRecord>);
      this.outputs.set(step.nodeId, output);
    } else {
      Object.assign(step, {
        status: 'waiting',
        state: result.state ?? null,
        wakeAt: result.until,
        output: result.output ? output : null,
        ms: null,
      } satisfies Partial<StepRecord>);
    }
    this.keep(step.nodeId, keptBytes(step, this.replyTextOf(step)));
    this.checkpoints.stage(step);
    if (!executor.pure) await this.checkpoints.flush();
  }

  /** A failed attempt: the next one is scheduled when the node's retry policy allows, else the run fails. */
  private async stepFailed(
    step: StepRecord,
    node: DiagramNode,
    executor: NodeExecutor | null,
    error: unknown,
  ): Promise<void> {
    if (error instanceof LeaseLost) throw error;
    const message = cutError(this.messageOf(error, node));
    const retryAt = nextAttemptAt(retryPolicyOf(node.data.properties), step.attempt, this.resources.now());
    if (retryAt) {
      Object.assign(step, {
        status: 'waiting',
        error: message,
        attempt: step.attempt + 1,
        wakeAt: retryAt,
        state: null,
        output: null,
        ms: null,
      } satisfies Partial<StepRecord>);
    } else {
      Object.assign(step, {
        status: 'error',
        error: message,
        ms: this.elapsed(step),
        wakeAt: null,
        state: null,
        // What a waiting step showed (pending approvals) is no longer true of it.
        output: null,
      } satisfies Partial<StepRecord>);
      this.failure ??= { nodeId: step.nodeId, message };
    }
    this.keep(step.nodeId, keptBytes(step, null));
    this.checkpoints.stage(step);
    if (executor && !executor.pure) await this.checkpoints.flush();
  }

  private messageOf(error: unknown, node: DiagramNode): string {
    if (error instanceof StepFailure || error instanceof DomainException) return error.message;
    this.resources.logger.error(
      { err: error, runId: this.run.id, nodeId: node.id },
      'a step failed with an unexpected error',
    );
    return `The step failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`;
  }

  /** Why the step may not start with this input: past a step's limit, or past the run's. */
  private inputRefusal(step: StepRecord, node: DiagramNode, input: string | null): StepFailure | undefined {
    const { stepInputMaxBytes, runDataMaxBytes } = this.resources.settings.limits;
    const bytes = input === null ? 0 : Buffer.byteLength(input);
    if (bytes > stepInputMaxBytes) {
      return new StepFailure(limitFailures.input(node.id, bytes, stepInputMaxBytes));
    }
    const total = this.keptWith(step.nodeId, keptBytes({ input, output: null, error: null }, null));
    if (total > runDataMaxBytes) return new StepFailure(limitFailures.run(node.id, total, runDataMaxBytes));
    return undefined;
  }

  /** Why the step may not keep this output: past a step's limit, or past the run's. */
  private outputRefusal(
    step: StepRecord,
    node: DiagramNode,
    output: Record<string, string>,
    outcome: Pick<StepRecord, 'status' | 'route'>,
  ): StepFailure | undefined {
    const { stepOutputMaxBytes, runDataMaxBytes } = this.resources.settings.limits;
    const bytes = outputBytes(output);
    if (bytes > stepOutputMaxBytes) {
      return new StepFailure(limitFailures.output(node.id, bytes, stepOutputMaxBytes));
    }
    const ended = { nodeId: step.nodeId, ...outcome, output };
    const total = this.keptWith(
      step.nodeId,
      keptBytes({ input: step.input, output, error: null }, this.replyTextOf(ended)),
    );
    if (total > runDataMaxBytes) return new StepFailure(limitFailures.run(node.id, total, runDataMaxBytes));
    return undefined;
  }

  /** The run's kept bytes were the step to count `bytes` (in place of what it counts now). */
  private keptWith(nodeId: string, bytes: number): number {
    return this.keptTotal - (this.kept.get(nodeId) ?? 0) + bytes;
  }

  private keep(nodeId: string, bytes: number): void {
    this.keptTotal = this.keptWith(nodeId, bytes);
    this.kept.set(nodeId, bytes);
  }

  /** The step's text when it ends the run (done, firing no edge), which the reply repeats; else null. */
  private replyTextOf(step: Pick<StepRecord, 'nodeId' | 'status' | 'route' | 'output'>): string | null {
    if (step.status !== 'done' || !this.graph?.has(step.nodeId)) return null;
    if (this.graph.outgoing(step.nodeId).some((edge) => edgeFires(edge, step))) return null;
    const field = this.textFieldOf(this.graph, step.nodeId);
    return field === null ? null : (step.output?.[field] ?? null);
  }

  /** The text of the steps whose edges fired into this one, joined with a blank line. */
  private previousTextOf(graph: RunGraph, step: StepRecord): string {
    return step.via
      .map((edgeId) => graph.incoming(step.nodeId).find((edge) => edge.id === edgeId)?.source)
      .filter((source): source is string => source !== undefined)
      .map((source) => {
        const field = this.textFieldOf(graph, source);
        return field === null ? '' : (this.outputs.get(source)?.[field] ?? '');
      })
      .filter((text) => text !== '')
      .join('\n\n');
  }

  private contextFor(
    node: DiagramNode,
    step: StepRecord,
    idempotencyKey: string,
    previousText = '',
  ): StepContext {
    const templates = new StepTemplates(node.id, this.scope, this.resources.settings.limits);
    return {
      run: this.stepRun,
      node,
      properties: node.data.properties ?? {},
      attempt: step.attempt,
      idempotencyKey,
      stoppedByCancelOf: step.compensation ? null : this.run.id,
      interrupted: step.status === 'running' && !this.started.has(step.nodeId),
      state: step.state ?? null,
      startedAt: step.startedAt,
      signal: this.abort.signal,
      previousText,
      scope: this.scope,
      render: (template, property) => templates.render(template, property),
      renderDeep: (value, property) => templates.renderDeep(value, property),
      now: this.resources.now,
    };
  }

  private textFieldOf(graph: RunGraph, nodeId: string): string | null {
    if (!graph.has(nodeId)) return null;
    // A loop iteration starts at its loop node, whose step there is the item, not the loop's results.
    if (this.run.iteration !== null && nodeId === this.run.triggerNodeId) return ITERATION_TEXT_FIELD;
    return this.resources.executors.get(graph.node(nodeId).data.type)?.textField ?? null;
  }

  private settlementOf(graph: RunGraph): RunSettlement {
    if (this.failure) return { status: 'errored', error: this.failure.message };
    const wakes = [...this.steps.values()]
      .filter((step) => step.status === 'waiting')
      .map((step) => step.wakeAt?.getTime() ?? 0);
    const wakeAt = wakes.length > 0 ? new Date(Math.min(...wakes)) : null;
    // Paused with steps left to decide (or waiting): a node without a step has not been reached yet.
    if (this.pausing && (wakeAt !== null || graph.order.some((nodeId) => !this.steps.has(nodeId)))) {
      return { status: 'paused', wakeAt };
    }
    if (wakeAt !== null) return { status: 'waiting', wakeAt };
    const ordered = [...this.steps.values()].sort((a, b) => a.position - b.position);
    return { status: 'complete', reply: replyText(ordered, graph, (id) => this.textFieldOf(graph, id)) };
  }

  private async settle(settlement: RunSettlement): Promise<ExecutionEnd> {
    try {
      await this.checkpoints.flush(settlement);
    } catch (error) {
      if (error instanceof LeaseLost) return { kind: 'lost' };
      throw error;
    }
    if (isFinal(settlement.status)) {
      runFinished(settlement.status, this.run.createdAt);
      this.resources.ended(this.run);
    }
    return { kind: 'settled', settlement };
  }

  private elapsed(step: StepRecord): number {
    return Math.max(0, this.resources.now().getTime() - step.startedAt.getTime());
  }
}

/** The step's outcome on its span: its status, and an error status when it failed. */
function endStepSpan(span: Span | undefined, step: StepRecord | undefined, stopped: boolean): void {
  if (!span || !step) return;
  span.setAttribute('flowmesh.step.status', stopped ? 'interrupted' : step.status);
  if (!stopped && step.status === 'error') {
    span.setStatus({ code: SpanStatusCode.ERROR, message: step.error ?? 'failed' });
  }
}
