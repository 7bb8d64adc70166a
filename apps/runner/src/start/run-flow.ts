import { createHash } from 'node:crypto';

import { DomainException } from '#common';
import { type Diagram, FLOW_KEY_MAX_LENGTH, flowControlOf, PRIORITY_MAX, type RunHeldBy } from '#contracts';

import { renderTemplate, TemplateTooLarge, type TemplateScope } from '../templates/template.util.js';

/** Every gate a queued run can wait at: its workflow's, or its organization's share of the queue. */
export type HeldBy = RunHeldBy;

/** The gates of a workflow's flow control, in the order a new run passes them. */
export type WorkflowGate = Exclude<HeldBy, 'share'>;

/**
 * Where a new run stands in its workflow's flow control (docs/flow-control.md), rendered once at its
 * start from `settings` and the run's input, and written with it: the database's gates read only
 * these columns, never the diagram.
 */
export interface RunFlow {
  /** The first of its workflow's gates it waits at; null when the workflow has none. */
  gate: WorkflowGate | null;
  priority: number;
  concurrencyKey: string | null;
  concurrencyLimit: number | null;
  throttleKey: string | null;
  throttleLimit: number | null;
  throttlePeriodS: number | null;
  debounceKey: string | null;
  /** When a debounced run goes on unless a later start replaces it. */
  releaseAt: Date | null;
  /**
   * Its organization's share of the RUNS stream: the runs it may have waiting there before its next
   * are held. Null for a run that is never held for it (a child run: its parent already took a place).
   */
  share: number | null;
}

/** A run nothing holds: a loop's iteration, a run executed at once. */
export const UNGATED: RunFlow = {
  gate: null,
  priority: 0,
  concurrencyKey: null,
  concurrencyLimit: null,
  throttleKey: null,
  throttleLimit: null,
  throttlePeriodS: null,
  debounceKey: null,
  releaseAt: null,
  share: null,
};

/** A rendered key or priority is bounded (a template may repeat the whole input). */
const RENDERED_MAX_BYTES = 1_048_576;

/**
 * The flow of a run of `diagram` started now with `input`. Keys and the priority are rendered from
 * the trigger alone (no step has run yet); a key longer than `FLOW_KEY_MAX_LENGTH` is kept as its
 * SHA-256, so keys of any length count apart.
 */
export function runFlowOf(diagram: Diagram, input: string, now: Date, share: number | null): RunFlow {
  const control = flowControlOf(diagram);
  const scope: TemplateScope = { input, outputs: new Map() };
  const key = (template: string | undefined) => keyOf(template === undefined ? '' : render(template, scope));
  const flow: RunFlow = { ...UNGATED, share };
  if (control.priority !== undefined) flow.priority = priorityOf(render(control.priority, scope));
  if (control.concurrency) {
    flow.concurrencyKey = key(control.concurrency.key);
    flow.concurrencyLimit = control.concurrency.limit;
    flow.gate = 'concurrency';
  }
  if (control.throttle) {
    flow.throttleKey = key(control.throttle.key);
    flow.throttleLimit = control.throttle.limit;
    flow.throttlePeriodS = control.throttle.periodSeconds;
    flow.gate = 'throttle';
  }
  if (control.debounce) {
    flow.debounceKey = key(control.debounce.key);
    flow.releaseAt = new Date(now.getTime() + control.debounce.periodSeconds * 1000);
    flow.gate = 'debounce';
  }
  return flow;
}

/**
 * The flow of a run written before its due time (`StartRunRequest.notBefore`): held at the `schedule`
 * gate until then, after which it meets its workflow's gates and its organization's share as a run
 * started at that time would. A debounced run goes straight to its debounce gate, its period counted
 * from the due time: debounce is a hold until a time already, and a later start that replaces it
 * replaces a run that has not started either way.
 */
export function heldUntil(flow: RunFlow, notBefore: Date, now: Date): RunFlow {
  const early = notBefore.getTime() - now.getTime();
  if (early <= 0) return flow;
  if (flow.gate === 'debounce' && flow.releaseAt !== null) {
    return { ...flow, releaseAt: new Date(flow.releaseAt.getTime() + early) };
  }
  return { ...flow, gate: 'schedule', releaseAt: notBefore };
}

function render(template: string, scope: TemplateScope): string {
  try {
    return renderTemplate(template, scope, RENDERED_MAX_BYTES);
  } catch (error) {
    if (!(error instanceof TemplateTooLarge)) throw error;
    throw new DomainException(
      'invalid_request',
      `A flow control key or priority of this workflow renders to more than ${RENDERED_MAX_BYTES} bytes with this input.`,
    );
  }
}

function keyOf(rendered: string): string {
  return rendered.length <= FLOW_KEY_MAX_LENGTH
    ? rendered
    : `sha256:${createHash('sha256').update(rendered).digest('hex')}`;
}

/** An integer in ±PRIORITY_MAX, 0 for anything that is not a number. */
export function priorityOf(rendered: string): number {
  const value = Number(rendered.trim());
  if (rendered.trim() === '' || !Number.isFinite(value)) return 0;
  return Math.max(-PRIORITY_MAX, Math.min(PRIORITY_MAX, Math.trunc(value)));
}
