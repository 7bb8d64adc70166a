import type { Diagram } from './diagram.js';
import type { JsonSchema } from './node-type-schemas.js';

/*
 * Flow control (docs/flow-control.md): a workflow's `settings.concurrency`, `throttle`, `debounce`
 * and `priority`, checked at publish like the rest of `settings`, applied by the runner when a run
 * of a published version (or of a draft) starts.
 */

/**
 * The gates a queued run can wait at (a run's `heldBy`), in the order it passes them. `schedule` holds
 * a scheduled run written before its due time until that time (docs/workflows.md, "Schedules").
 */
export const RUN_HELD_BY = ['schedule', 'debounce', 'throttle', 'concurrency', 'share'] as const;
export type RunHeldBy = (typeof RUN_HELD_BY)[number];

/** A key or priority template's length; a rendered key longer than `FLOW_KEY_MAX_LENGTH` is hashed. */
export const FLOW_TEMPLATE_MAX_LENGTH = 1_000;
export const FLOW_KEY_MAX_LENGTH = 200;
export const FLOW_LIMIT_MAX = 10_000;
export const THROTTLE_PERIOD_MAX_SECONDS = 86_400;
export const DEBOUNCE_PERIOD_MAX_SECONDS = 3_600;
/** A rendered priority is clamped to ±`PRIORITY_MAX`; what is not a number is 0. */
export const PRIORITY_MAX = 1_000_000;

export interface ConcurrencySettings {
  limit: number;
  key?: string;
}

export interface ThrottleSettings {
  limit: number;
  periodSeconds: number;
  key?: string;
}

export interface DebounceSettings {
  periodSeconds: number;
  key?: string;
}

/** The flow control a diagram's settings ask for, each absent when not asked for. */
export interface FlowControl {
  concurrency?: ConcurrencySettings;
  throttle?: ThrottleSettings;
  debounce?: DebounceSettings;
  priority?: string;
}

const keyTemplate = (what: string): JsonSchema => ({
  type: 'string',
  maxLength: FLOW_TEMPLATE_MAX_LENGTH,
  description: `A template (like node properties: \`{{trigger.customerId}}\`) whose value, rendered at the start of each run, names the key the ${what} is counted per. Absent: one count for the whole workflow.`,
});

export const FLOW_CONTROL_SETTINGS_SCHEMA: Record<keyof FlowControl, JsonSchema> = {
  concurrency: {
    type: 'object',
    description:
      'At most `limit` unfinished runs of this workflow at once, per value of `key` or in total. A run over the limit waits `queued` (its `heldBy` says why) without taking a runner slot, and starts when a run of its key ends, highest `priority` first, then in the order they started.',
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: FLOW_LIMIT_MAX },
      key: keyTemplate('limit'),
    },
    required: ['limit'],
    additionalProperties: false,
  },
  throttle: {
    type: 'object',
    description:
      'At most `limit` runs start per `periodSeconds`, per value of `key` or in total; the rest wait `queued` for the period to make room, highest `priority` first.',
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: FLOW_LIMIT_MAX },
      periodSeconds: { type: 'integer', minimum: 1, maximum: THROTTLE_PERIOD_MAX_SECONDS },
      key: keyTemplate('throttle'),
    },
    required: ['limit', 'periodSeconds'],
    additionalProperties: false,
  },
  debounce: {
    type: 'object',
    description:
      'A run waits `periodSeconds` before it starts; another start for the same key within that time replaces it (the earlier run ends `terminated`, its error naming the run that replaced it), so only the last start of a burst runs.',
    properties: {
      periodSeconds: { type: 'integer', minimum: 1, maximum: DEBOUNCE_PERIOD_MAX_SECONDS },
      key: keyTemplate('debounce'),
    },
    required: ['periodSeconds'],
    additionalProperties: false,
  },
  priority: {
    type: 'string',
    minLength: 1,
    maxLength: FLOW_TEMPLATE_MAX_LENGTH,
    description: `A template rendering a number (an integer, clamped to ±${PRIORITY_MAX}; anything else counts as 0): among this workflow's runs waiting for the same limit, and its organization's runs waiting for their share of the runners, higher starts first.`,
  },
};

/** The flow control of a diagram whose settings were validated at publish. */
export function flowControlOf(diagram: Diagram): FlowControl {
  const settings = (diagram.settings ?? {}) as Record<string, unknown>;
  const control: FlowControl = {};
  if (isObject(settings['concurrency'])) control.concurrency = settings['concurrency'] as ConcurrencySettings;
  if (isObject(settings['throttle'])) control.throttle = settings['throttle'] as ThrottleSettings;
  if (isObject(settings['debounce'])) control.debounce = settings['debounce'] as DebounceSettings;
  if (typeof settings['priority'] === 'string' && settings['priority'] !== '') {
    control.priority = settings['priority'];
  }
  return control;
}

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null;
