import type { DiagramEdge, RetryPolicy, StepStatus } from '#contracts';

/** What the decisions below need to know of a step. */
export interface StepOutcomeView {
  status: StepStatus;
  /** The `sourceHandle` whose edges fired; null: all of them. */
  route: string | null;
}

/** An edge fires when its source is done and, for a routed source (a condition), on its route. */
export function edgeFires(edge: DiagramEdge, source: StepOutcomeView | undefined): boolean {
  if (source?.status !== 'done') return false;
  return source.route === null || edge.sourceHandle === source.route;
}

export type NodeDecision =
  /** Some edge into it is not settled yet. */
  | { kind: 'blocked' }
  | { kind: 'run'; via: string[] }
  /** Every edge into it is settled and none fired. */
  | { kind: 'skip' };

/**
 * Whether a node not started yet can be decided: once every edge into it (from nodes the run can
 * reach) is settled, it runs if at least one fired and is skipped if none did.
 */
export function decideNode(
  incoming: readonly DiagramEdge[],
  stepOf: (nodeId: string) => StepOutcomeView | undefined,
): NodeDecision {
  const via: string[] = [];
  for (const edge of incoming) {
    const source = stepOf(edge.source);
    if (source?.status !== 'done' && source?.status !== 'skipped') return { kind: 'blocked' };
    if (edgeFires(edge, source)) via.push(edge.id);
  }
  return via.length > 0 ? { kind: 'run', via } : { kind: 'skip' };
}

/** The retry policy of a node's properties, or null when it has none (or none that retries). */
export function retryPolicyOf(properties: Readonly<Record<string, unknown>>): RetryPolicy | null {
  const retry = properties.retry as Partial<RetryPolicy> | undefined;
  if (typeof retry !== 'object' || retry === null) return null;
  const attempts = Number(retry.attempts);
  const backoffSeconds = Number(retry.backoffSeconds);
  if (!Number.isInteger(attempts) || attempts < 1 || !(backoffSeconds > 0)) return null;
  return { attempts: Math.min(attempts, 10), backoffSeconds: Math.min(backoffSeconds, 3600) };
}

/**
 * When the step that just failed `failedAttempt` (1 for the first try) runs again, or null when it
 * has no attempts left. `attempts` counts the tries after the first; each waits `backoffSeconds`.
 */
export function nextAttemptAt(policy: RetryPolicy | null, failedAttempt: number, now: Date): Date | null {
  if (!policy || failedAttempt > policy.attempts) return null;
  return new Date(now.getTime() + policy.backoffSeconds * 1000);
}

/** A run whose job has been picked up this often without finishing is failing the runner itself. */
export function claimsExhausted(claims: number, maxClaims: number): boolean {
  return claims > maxClaims;
}
