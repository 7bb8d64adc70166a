import { DomainException } from '#common';
import type { RerunRunDto } from '#contracts';

import { RunGraph } from '../engine/run-graph.js';
import type { RunWithSteps, StepRecord } from '../engine/run-state.js';

/** What a rerun starts with: the trigger's input, and the steps carried over from the old run. */
export interface RerunPlan {
  input: string;
  /** `done` or `skipped` in the old run and independent of where the rerun starts; in start order. */
  carried: StepRecord[];
}

/**
 * Where a rerun starts and what it keeps. With `input`: from the trigger, with that input, keeping
 * nothing. With `fromNodeId`: that node and everything downstream of it run anew; every other step
 * the old run settled (`done` or `skipped`) is carried over as it was, unless the old run undid it
 * (a compensation of it ran): then it and what follows it run anew. Without either: from the
 * old run's first failed step, or from the trigger when none failed. A node carried over depends on
 * nothing that runs anew: were one of its upstream nodes downstream of the start, so would it be.
 */
export function rerunPlan({ run, steps }: RunWithSteps, body: RerunRunDto): RerunPlan {
  if (body.fromNodeId !== undefined && body.input !== undefined) {
    throw DomainException.invalidRequest([
      {
        path: 'fromNodeId',
        message: 'fromNodeId and input cannot be sent together: a new input reruns from the trigger',
      },
    ]);
  }
  // A rerun runs the diagram the old run stored, whatever its version: trimmed, its nodes have no
  // properties left to run with.
  if (run.diagramTrimmedAt !== null) {
    throw DomainException.invalidRequest([
      {
        path: 'id',
        message: `the run's diagram was trimmed by retention on ${day(run.diagramTrimmedAt)} (its nodes kept no properties), so it cannot be rerun; start a new run of the workflow instead`,
      },
    ]);
  }
  const trigger = run.triggerNodeId;
  if (trigger === null || !run.diagram.nodes.some((node) => node.id === trigger)) {
    throw DomainException.invalidRequest([
      { path: 'id', message: "the run's trigger node is not in its diagram, so it cannot be rerun" },
    ]);
  }
  if (body.input !== undefined) return { input: body.input, carried: [] };
  const graph = RunGraph.of(run.diagram, trigger);
  if (body.fromNodeId !== undefined && !graph.has(body.fromNodeId)) {
    throw DomainException.invalidRequest([
      {
        path: 'fromNodeId',
        message: `"${body.fromNodeId}" is not a node this run can reach from its trigger`,
      },
    ]);
  }
  const ran = steps.filter((step) => !step.compensation).sort((a, b) => a.position - b.position);
  const from = body.fromNodeId ?? ran.find((step) => step.status === 'error')?.nodeId;
  if (from === undefined || from === trigger) return { input: run.input, carried: [] };
  // A step the old run undid (its compensation ran, whatever came of it) is no effect to build on:
  // it runs anew, and so does everything downstream of it.
  const undone = steps
    .filter((step) => step.compensation && graph.has(step.nodeId))
    .map((step) => step.nodeId);
  const anew = new Set([from, ...undone].flatMap((nodeId) => [...downstreamOf(graph, nodeId)]));
  const carried = ran
    .filter((step) => step.nodeId !== trigger && !anew.has(step.nodeId))
    .filter((step) => step.status === 'done' || step.status === 'skipped');
  // A carried step's output feeds the steps after it: trimmed, they would read empty values. The
  // run's own input is kept, so a rerun from the trigger still works.
  const trimmed = carried.find((step) => step.payloadTrimmedAt !== null);
  if (trimmed?.payloadTrimmedAt) {
    throw DomainException.invalidRequest([
      {
        path: body.fromNodeId === undefined ? 'id' : 'fromNodeId',
        message: `the outputs of the steps this rerun would carry over (${carried.map((step) => step.nodeId).join(', ')}) were trimmed by retention on ${day(trimmed.payloadTrimmedAt)}; rerun it from its trigger instead (fromNodeId set to the trigger node, or a new input)`,
      },
    ]);
  }
  return {
    input: run.input,
    carried: carried.map((step, index) => ({
      ...step,
      via: [...step.via],
      position: index + 1,
      carriedFrom: run.id,
    })),
  };
}

const day = (at: Date) => at.toISOString().slice(0, 10);

/** The node and every node reachable from it. */
function downstreamOf(graph: RunGraph, nodeId: string): Set<string> {
  const seen = new Set([nodeId]);
  const queue = [nodeId];
  for (const id of queue) {
    for (const edge of graph.outgoing(id)) {
      if (!seen.has(edge.target)) {
        seen.add(edge.target);
        queue.push(edge.target);
      }
    }
  }
  return seen;
}
