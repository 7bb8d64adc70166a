import './flow-control-settings.css';

import type { Schemas } from '../api/client';
import {
  DEBOUNCE_PERIOD,
  FLOW_LIMIT,
  type FlowGate,
  gateOf,
  type GateFields,
  numberOf,
  THROTTLE_PERIOD,
  withGateField,
} from './flow-control.util';

type Settings = Schemas['DiagramSettings'];

/**
 * The diagram's flow control (docs/flow-control.md): `concurrency`, `throttle`, `debounce` and
 * `priority`. A gate whose fields are all empty is left out of the settings, which is no limit.
 */
export function FlowControlSettings({
  settings,
  onChange,
}: {
  settings: Settings;
  onChange: (changes: Partial<Settings>) => void;
}) {
  const setField = (gate: FlowGate, field: keyof GateFields, value: number | string | undefined) =>
    // A half-filled gate does not match the generated type (its `limit` is required): the API
    // names what is missing when the draft is published.
    onChange({ [gate]: withGateField(gateOf(settings, gate), field, value) } as Partial<Settings>);
  const field = (gate: FlowGate, name: keyof GateFields) => {
    const value = gateOf(settings, gate)[name];
    return value === undefined ? '' : String(value);
  };
  const priority = typeof settings.priority === 'string' ? settings.priority : '';
  return (
    <fieldset className="flow-control">
      <legend>Flow control</legend>
      <p className="muted">
        When this workflow&apos;s runs may start. A run held back waits <code>queued</code>, without taking a
        runner. A key is a template of the run&apos;s input, such as <code>{'{{trigger.customerId}}'}</code>:
        each of its values is counted apart; without one the whole workflow counts as one. An empty limit or
        period turns its setting off.
      </p>
      <div className="flow-control-gates">
        <div className="flow-gate">
          <NumberField
            id="settings-concurrency-limit"
            label="Concurrency limit"
            bounds={FLOW_LIMIT}
            value={field('concurrency', 'limit')}
            onChange={(value) => setField('concurrency', 'limit', value)}
            describedBy="settings-concurrency-help"
          />
          <KeyField
            id="settings-concurrency-key"
            label="Concurrency key"
            value={field('concurrency', 'key')}
            onChange={(value) => setField('concurrency', 'key', value)}
            describedBy="settings-concurrency-help"
          />
          <small id="settings-concurrency-help" className="muted">
            At most this many runs unfinished at once, per key or in total. The others wait until a run of
            their key ends, highest priority first, then oldest first.
          </small>
        </div>
        <div className="flow-gate">
          <NumberField
            id="settings-throttle-limit"
            label="Throttle limit"
            bounds={FLOW_LIMIT}
            value={field('throttle', 'limit')}
            onChange={(value) => setField('throttle', 'limit', value)}
            describedBy="settings-throttle-help"
          />
          <NumberField
            id="settings-throttle-period"
            label="Throttle period (seconds)"
            bounds={THROTTLE_PERIOD}
            value={field('throttle', 'periodSeconds')}
            onChange={(value) => setField('throttle', 'periodSeconds', value)}
            describedBy="settings-throttle-help"
          />
          <KeyField
            id="settings-throttle-key"
            label="Throttle key"
            value={field('throttle', 'key')}
            onChange={(value) => setField('throttle', 'key', value)}
            describedBy="settings-throttle-help"
          />
          <small id="settings-throttle-help" className="muted">
            At most this many runs start per period, per key or in total. The others wait until the period
            makes room, highest priority first.
          </small>
        </div>
        <div className="flow-gate">
          <NumberField
            id="settings-debounce-period"
            label="Debounce period (seconds)"
            bounds={DEBOUNCE_PERIOD}
            value={field('debounce', 'periodSeconds')}
            onChange={(value) => setField('debounce', 'periodSeconds', value)}
            describedBy="settings-debounce-help"
          />
          <KeyField
            id="settings-debounce-key"
            label="Debounce key"
            value={field('debounce', 'key')}
            onChange={(value) => setField('debounce', 'key', value)}
            describedBy="settings-debounce-help"
          />
          <small id="settings-debounce-help" className="muted">
            A run waits this long before it starts. Another start with the same key within that time replaces
            it (the earlier run ends terminated), so only the last start of a burst runs.
          </small>
        </div>
        <div className="flow-gate">
          <div className="field">
            <label htmlFor="settings-priority">Priority</label>
            <input
              id="settings-priority"
              type="text"
              spellCheck={false}
              maxLength={1000}
              value={priority}
              aria-describedby="settings-priority-help"
              onChange={(event) => onChange({ priority: event.target.value || undefined })}
            />
          </div>
          <small id="settings-priority-help" className="muted">
            A template rendering a whole number, such as <code>{'{{trigger.tier}}'}</code>. Among runs waiting
            at the same limit, and the organization&apos;s runs waiting for their share of the runners, higher
            starts first; anything but a number counts as 0.
          </small>
        </div>
      </div>
    </fieldset>
  );
}

function NumberField({
  id,
  label,
  bounds,
  value,
  onChange,
  describedBy,
}: {
  id: string;
  label: string;
  bounds: { min: number; max: number };
  value: string;
  onChange: (value: number | undefined) => void;
  describedBy: string;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="number"
        inputMode="numeric"
        min={bounds.min}
        max={bounds.max}
        step={1}
        value={value}
        aria-describedby={describedBy}
        onChange={(event) => onChange(numberOf(event.target.value))}
      />
    </div>
  );
}

function KeyField({
  id,
  label,
  value,
  onChange,
  describedBy,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string | undefined) => void;
  describedBy: string;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="text"
        spellCheck={false}
        maxLength={1000}
        value={value}
        aria-describedby={describedBy}
        onChange={(event) => onChange(event.target.value || undefined)}
      />
    </div>
  );
}
