import { statusLabel } from '../components/ui';
import { instantOf, RUN_STATUSES, RUN_TRIGGERS, type RunFilter, type RunTrigger } from './run-filter';

/**
 * The runs' filters: statuses (any of those checked), what started them, and when they were created
 * (from, inclusive, to, exclusive), in the member's own time.
 */
export function RunFilterForm({
  filter,
  local,
  onChange,
}: {
  filter: RunFilter;
  /** The time fields as typed, which the instants in `filter` come from. */
  local: { after: string; before: string };
  onChange: (filter: RunFilter, local: { after: string; before: string }) => void;
}) {
  const statuses = filter.status ?? [];
  const set = (next: Partial<RunFilter>) => onChange({ ...filter, ...next }, local);
  return (
    <form className="card run-filter" aria-label="Filter runs" onSubmit={(event) => event.preventDefault()}>
      <fieldset>
        <legend>Status</legend>
        <div className="row">
          {RUN_STATUSES.map((status) => (
            <label key={status} className="check">
              <input
                type="checkbox"
                checked={statuses.includes(status)}
                onChange={(event) => {
                  const next = event.target.checked
                    ? [...statuses, status]
                    : statuses.filter((known) => known !== status);
                  set({ status: next.length > 0 ? next : undefined });
                }}
              />
              {statusLabel(status)}
            </label>
          ))}
        </div>
      </fieldset>
      <div className="row">
        <label htmlFor="run-trigger">Started by</label>
        <select
          id="run-trigger"
          value={filter.trigger ?? ''}
          onChange={(event) =>
            set({ trigger: event.target.value === '' ? undefined : (event.target.value as RunTrigger) })
          }
        >
          <option value="">Anything</option>
          {RUN_TRIGGERS.map((trigger) => (
            <option key={trigger} value={trigger}>
              {trigger}
            </option>
          ))}
        </select>
        <label htmlFor="run-after">Created from</label>
        <input
          id="run-after"
          type="datetime-local"
          value={local.after}
          onChange={(event) =>
            onChange(
              { ...filter, createdAfter: instantOf(event.target.value) },
              { ...local, after: event.target.value },
            )
          }
        />
        <label htmlFor="run-before">until</label>
        <input
          id="run-before"
          type="datetime-local"
          value={local.before}
          onChange={(event) =>
            onChange(
              { ...filter, createdBefore: instantOf(event.target.value) },
              { ...local, before: event.target.value },
            )
          }
        />
      </div>
    </form>
  );
}
