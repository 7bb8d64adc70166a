import type { Schemas } from '../api/client';

type Run = Schemas['WorkflowRunDto'];

/**
 * The child run each `workflow` step of the run started, by node id: the step's `runId` output, which
 * it shows from the moment the child is recorded (while it waits too). Steps of other types, and a
 * `workflow` step that failed before it started a child, have none.
 */
export function childRunsOf(run: Pick<Run, 'diagram' | 'steps'>): Map<string, string> {
  const calls = new Set(
    run.diagram.nodes.filter((node) => node.data.type === 'workflow').map((node) => node.id),
  );
  const children = new Map<string, string>();
  for (const step of run.steps) {
    const runId = step.output?.runId;
    if (!step.compensation && calls.has(step.nodeId) && runId) children.set(step.nodeId, runId);
  }
  return children;
}

/** The anchor of a step in the run view, which a child run's link back to its parent step points at. */
export const stepAnchor = (nodeId: string) => `step-${nodeId}`;
