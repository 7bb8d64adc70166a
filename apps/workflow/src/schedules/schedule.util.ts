import type { Diagram } from '#contracts';

export interface ScheduleTrigger {
  nodeId: string;
  cron: string;
}

/** The schedule triggers of a diagram that validated: each `trigger` node of kind `schedule`. */
export function scheduleTriggers(diagram: Diagram): ScheduleTrigger[] {
  return diagram.nodes.flatMap((node) => {
    const { kind, cron } = node.data.properties;
    return node.data.type === 'trigger' && kind === 'schedule' && typeof cron === 'string'
      ? [{ nodeId: node.id, cron }]
      : [];
  });
}

/**
 * Whether a due time is still worth a run. After an outage a schedule fires once for the time it
 * missed, if that time is recent; an old one is skipped rather than run hours late.
 */
export function isStale(due: Date, now: Date, graceMs: number): boolean {
  return now.getTime() - due.getTime() > graceMs;
}

/** The runner keeps this key unique, so sending the same due time twice starts one run. */
export function scheduleIdempotencyKey(workflowId: string, triggerNodeId: string, due: Date): string {
  return `schedule:${workflowId}:${triggerNodeId}:${due.toISOString()}`;
}
