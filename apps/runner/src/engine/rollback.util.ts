import type { Diagram, DiagramNode, RetryPolicy } from '#contracts';

import type { StepRecord } from './run-state.js';
import { retryPolicyOf } from './step-decision.util.js';

/** What undoes an action node: its `compensate` properties, or null when it has none. */
export function compensateOf(node: DiagramNode): Record<string, unknown> | null {
  if (node.data.type !== 'action') return null;
  const compensate = node.data.properties.compensate;
  return typeof compensate === 'object' && compensate !== null && !Array.isArray(compensate)
    ? (compensate as Record<string, unknown>)
    : null;
}

/** A compensation without its own `retry` tries twice more, a second apart: undoing matters. */
export const DEFAULT_COMPENSATION_RETRY: RetryPolicy = { attempts: 2, backoffSeconds: 1 };

export function compensationRetryOf(compensate: Record<string, unknown>): RetryPolicy | null {
  return compensate.retry === undefined ? DEFAULT_COMPENSATION_RETRY : retryPolicyOf(compensate);
}

/** Whether a run of this diagram that fails rolls back (`settings.onError: "rollback"`). */
export function rollsBackOnError(diagram: Diagram): boolean {
  const settings = diagram.settings as { onError?: unknown } | undefined;
  return settings?.onError === 'rollback';
}

/**
 * The steps a rollback undoes, in the order it undoes them: every `done` step whose node has a
 * `compensate`, the last to complete first (a step completes at its start plus its duration; on a
 * tie, the later started first).
 */
export function compensationOrder(
  steps: Iterable<StepRecord>,
  nodeOf: (nodeId: string) => DiagramNode | undefined,
): StepRecord[] {
  const completedAt = (step: StepRecord) => step.startedAt.getTime() + (step.ms ?? 0);
  return [...steps]
    .filter((step) => {
      const node = nodeOf(step.nodeId);
      return (
        !step.compensation && step.status === 'done' && node !== undefined && compensateOf(node) !== null
      );
    })
    .sort((a, b) => completedAt(b) - completedAt(a) || b.position - a.position);
}

/** The run's error once it rolled back: what stopped it, then each compensation that failed. */
export function rollbackError(stoppedBy: string, compensations: Iterable<StepRecord>): string {
  const failed = [...compensations]
    .filter((step) => step.status === 'error')
    .sort((a, b) => a.position - b.position)
    .map((step) => `The compensation of "${step.nodeId}" failed: ${step.error ?? 'failed'}`);
  return [stoppedBy, ...failed].join('\n');
}
