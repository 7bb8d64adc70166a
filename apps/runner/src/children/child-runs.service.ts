import { type Diagram, RUN_MAX_DEPTH } from '#contracts';
import { newId } from '#persistence';
import { Injectable } from '@nestjs/common';

import type { StepRecord } from '../engine/run-state.js';
import { type StepContext, StepFailure } from '../executors/node-executor.js';
import { TriggerExecutor } from '../executors/trigger.executor.js';
import { runStarted } from '../metrics/run.metrics.js';
import { RunJobs } from '../queue/run-jobs.service.js';
import type { NewRun } from '../runs/new-run.js';
import { RunRepository } from '../runs/run.repository.js';
import { RunStarter } from '../start/run-starter.service.js';
import { type ChildRunState, ChildRunRepository } from './child-run.repository.js';
import { UNGATED } from '../start/run-flow.js';

/** A step waiting for children looks at them anyway after this long (a lost wake costs no more). */
export const CHILD_WAIT_FALLBACK_MS = 30_000;
/** The fallback doubles each time it finds the children still going, up to this. */
export const CHILD_WAIT_FALLBACK_MAX_MS = 300_000;

/**
 * When a step waiting for its children looks at them anyway, however the wake went: 30 s after its
 * `checks`-th look, doubling to 5 minutes, so a child waiting days on an approval costs its parent a
 * claim every 5 minutes, not every 30 s.
 */
export function childWaitUntil(now: Date, checks: number): Date {
  const wait = Math.min(
    CHILD_WAIT_FALLBACK_MS * 2 ** Math.min(Math.max(0, checks), 10),
    CHILD_WAIT_FALLBACK_MAX_MS,
  );
  return new Date(now.getTime() + wait);
}

/** One loop iteration to start: a run of (part of) the parent's diagram, from `triggerNodeId`. */
export interface IterationStart {
  iteration: number;
  /** Default `<nodeId>#<iteration>`. */
  childKey?: string;
  /** Default the parent's diagram. */
  diagram?: Diagram;
  /** The node the iteration's run starts at: its step is `done` at once with `triggerOutput`. */
  triggerNodeId: string;
  /** The iteration run's `input` (what `{{trigger}}` reads in it). */
  input: string;
  /** The start node's output; default `{payload: input}`, a Trigger's. */
  triggerOutput?: Record<string, string>;
  /** Steps the iteration starts with, `done` (e.g. the parent's outputs its body reads). */
  carried?: readonly StepRecord[];
}

/**
 * Child runs (docs/runs.md, "Child runs"): what the `workflow` and `loop` executors call to start
 * runs under their step and to read what those came to. A child is an ordinary run, executed,
 * checkpointed and taken over like any; its `child_key` makes starting it exactly once, so a step
 * run again after a crash finds the children it started. Its end wakes the step (`ChildWakes`).
 */
@Injectable()
export class ChildRuns {
  constructor(
    private readonly starter: RunStarter,
    private readonly runs: RunRepository,
    private readonly children: ChildRunRepository,
    private readonly jobs: RunJobs,
  ) {}

  /**
   * Starts the live version of `workflowId` with `input` as the child of this step, claimed as
   * `<nodeId>:<attempt>`, counted against the plan; the child that claim already names when the
   * step runs again. Fails the step past `RUN_MAX_DEPTH` and on every refusal of the start.
   */
  async startWorkflow(
    context: StepContext,
    workflowId: string,
    input: string,
  ): Promise<{ runId: string; status: ChildRunState['status'] }> {
    refuseDepth(context);
    return this.starter.startChild(
      context.run,
      { parentNodeId: context.node.id, childKey: `${context.node.id}:${context.attempt}`, iteration: null },
      workflowId,
      input,
    );
  }

  /**
   * Writes loop iterations as children of this step, `queued`, and publishes their jobs (not counted
   * against the plan). An iteration whose key is taken was started before (the step runs again
   * after a crash) and is left as it is. Answers the ids, by iteration, of those it wrote.
   */
  async startIterations(
    context: StepContext,
    iterations: readonly IterationStart[],
  ): Promise<Map<number, string>> {
    refuseDepth(context);
    const parent = context.run;
    const started = new Map<number, string>();
    for (const start of iterations) {
      const run: NewRun = {
        id: newId(),
        organizationId: parent.organizationId,
        workflowId: parent.workflowId,
        workflowName: parent.workflowName,
        projectId: parent.projectId,
        version: parent.version,
        trigger: parent.trigger,
        triggerNodeId: start.triggerNodeId,
        createdBy: parent.createdBy,
        principal: parent.principal,
        input: start.input,
        diagram: start.diagram ?? parent.diagram,
        timeZone: parent.timeZone,
        idempotencyKey: null,
        idempotencyFingerprint: null,
        triggerOutput: start.triggerOutput ?? TriggerExecutor.outputFor(start.input),
        createdAt: new Date(),
        rerunOf: null,
        traceParent: parent.traceParent,
        errorOfRunId: parent.errorOfRunId,
        // An iteration is part of its parent's run: no gate holds it.
        flow: UNGATED,
        child: {
          parentRunId: parent.id,
          parentNodeId: context.node.id,
          childKey: start.childKey ?? `${context.node.id}#${start.iteration}`,
          iteration: start.iteration,
          depth: parent.depth + 1,
        },
      };
      const outcome = await this.runs.insert(run, start.carried ?? []);
      if (outcome === 'workflow_deleted') {
        throw new StepFailure(`The workflow was deleted: no more iterations start.`);
      }
      if (outcome === 'recorded') started.set(start.iteration, run.id);
    }
    await Promise.all(
      [...started.values()].map((runId) => this.jobs.publishSoon({ runId, dispatch: 0 }, parent.traceParent)),
    );
    for (let i = 0; i < started.size; i++) runStarted('iteration');
    return started;
  }

  /** The child of this step's run with this id, as it stands now; null when it is not one. */
  child(context: StepContext, runId: string): Promise<ChildRunState | null> {
    return this.children.byId(context.run.id, runId);
  }

  /** The children this step started, in order (iterations by index), a window of them at a time. */
  ofStep(
    context: StepContext,
    window: { fromIteration?: number; limit?: number } = {},
  ): Promise<ChildRunState[]> {
    return this.children.ofStep(context.run.id, context.node.id, window);
  }
}

/** A child would be deeper than runs may go: the step fails, naming the depth (stops call cycles). */
function refuseDepth(context: StepContext): void {
  const depth = context.run.depth + 1;
  if (depth > RUN_MAX_DEPTH) {
    throw new StepFailure(
      `Node "${context.node.id}": a run it starts would be ${depth} runs deep, past the most runs may nest (${RUN_MAX_DEPTH}); do two workflows call each other?`,
    );
  }
}
