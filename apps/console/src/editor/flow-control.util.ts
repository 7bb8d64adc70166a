import type { Schemas } from '../api/client';

type Settings = Schemas['DiagramSettings'];

/** The settings whose value is an object of fields: `settings.concurrency.limit`, `.key`. */
export type FlowGate = 'concurrency' | 'throttle' | 'debounce';

/**
 * The bounds the workflow service checks at publish (libs/contracts/src/workflows/flow-control.ts),
 * repeated here for the inputs' `min` and `max`: the browser flags a value out of range as it is typed.
 */
export const FLOW_LIMIT = { min: 1, max: 10_000 };
export const THROTTLE_PERIOD = { min: 1, max: 86_400 };
export const DEBOUNCE_PERIOD = { min: 1, max: 3_600 };

/** A gate's fields as the panel edits them: any may be missing while the member fills them in. */
export type GateFields = Partial<Record<'limit' | 'periodSeconds' | 'key', number | string>>;

/** A number input's value: none when it is empty (or not a number yet, which the browser reads as empty). */
export function numberOf(text: string): number | undefined {
  if (text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isNaN(value) ? undefined : value;
}

/**
 * A gate with one field changed, or undefined once every field is empty: an absent gate is no limit.
 * A gate filled in part (a key without its limit) is kept as it is, so the fields do not lose what
 * was typed first; publishing names the missing field.
 */
export function withGateField(
  gate: GateFields | undefined,
  field: keyof GateFields,
  value: number | string | undefined,
): GateFields | undefined {
  const next: Record<string, unknown> = { ...gate, [field]: value };
  for (const [key, kept] of Object.entries(next)) if (kept === undefined || kept === '') delete next[key];
  return Object.keys(next).length === 0 ? undefined : (next as GateFields);
}

/** A gate's fields as read from settings saved by anyone: what is not an object reads as no fields. */
export function gateOf(settings: Settings, gate: FlowGate): GateFields {
  const value: unknown = settings[gate];
  return typeof value === 'object' && value !== null ? (value as GateFields) : {};
}
