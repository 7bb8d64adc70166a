import type { Schemas } from '../api/client';

type Run = Schemas['WorkflowRunDto'];
export type HeldBy = Schemas['DashboardHeldDto']['heldBy'];

/** The gate a held run waits at, in words (docs/flow-control.md). */
export const GATE_NAMES: Record<HeldBy, string> = {
  schedule: 'scheduled time',
  concurrency: 'concurrency limit',
  throttle: 'throttle limit',
  debounce: 'debounce period',
  share: "organization's share of the runners",
};

/** What lets it through, said after the gate. */
const GATE_WAITS: Record<HeldBy, string> = {
  schedule: 'Its schedule wrote it a few seconds early; it starts at its time.',
  concurrency: 'It starts when a run counted under the same key ends, highest priority first.',
  throttle: 'It starts when the period makes room, highest priority first.',
  debounce: 'A later start with the same key replaces it; otherwise it starts when the period is over.',
  share: "It starts as the organization's runs ahead of it leave the queue, highest priority first.",
};

/**
 * Why a queued run has not started, in a sentence; null for a run nothing holds. A `heldBy` left on
 * a run that has since moved on (the live stream tells status changes only) is not shown.
 */
export function heldLine(run: Pick<Run, 'status' | 'heldBy' | 'heldKey'>): string | null {
  if (run.status !== 'queued' || run.heldBy === undefined) return null;
  if (run.heldBy === 'share') return `Waiting: its ${GATE_NAMES.share}. ${GATE_WAITS.share}`;
  const key = run.heldKey ? ` (key “${run.heldKey}”)` : '';
  return `Waiting: ${GATE_NAMES[run.heldBy]}${key}. ${GATE_WAITS[run.heldBy]}`;
}
