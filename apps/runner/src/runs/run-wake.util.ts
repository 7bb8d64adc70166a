import type { RunNextWake } from '#contracts';

import type { RunWithSteps } from '../engine/run-state.js';
import { visibleStatus } from './run-status.util.js';

/** Whether a step of `nodeType`, waiting with `state`, waits on someone's decision (an executor's `awaitsDecision`). */
export type AwaitsDecision = (nodeType: string, state: unknown) => boolean;

/**
 * What `run` waits for: the earliest due time of its steps waiting on time (delays, retries), and
 * whether one waits on a decision. The run row's `wake_at` cannot tell the two apart: an approval's
 * expiry is a wake time too. A waiting step without a due time is due now, as the engine reads it.
 */
export function nextWakeOf(
  { run, steps }: RunWithSteps,
  awaitsDecision: AwaitsDecision,
  now: Date,
): RunNextWake {
  const status = visibleStatus(run.status, run.createdAt, now);
  if (status !== 'waiting') return { status, wakeAt: null, awaitsDecision: false };
  const types = new Map(run.diagram.nodes.map((node) => [node.id, node.data.type]));
  let earliest: number | null = null;
  let decision = false;
  for (const step of steps) {
    if (step.status !== 'waiting') continue;
    const type = types.get(step.nodeId);
    if (type !== undefined && awaitsDecision(type, step.state)) {
      decision = true;
      continue;
    }
    const due = step.wakeAt?.getTime() ?? 0;
    earliest = earliest === null ? due : Math.min(earliest, due);
  }
  return {
    status,
    wakeAt: earliest === null ? null : new Date(earliest).toISOString(),
    awaitsDecision: decision,
  };
}
