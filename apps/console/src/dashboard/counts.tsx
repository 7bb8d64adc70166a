import './counts.css';

import type { Schemas } from '../api/client';

/** The organization's numbers at a glance. */
export function Counts({ counts }: { counts: Schemas['DashboardCountsDto'] }) {
  return (
    <section aria-labelledby="counts-title">
      <h2 id="counts-title">At a glance</h2>
      <dl className="counts">
        {(
          [
            ['Projects', counts.projects],
            ['Workflows', counts.workflows],
            ['Published', counts.published],
            ['Connections', counts.connections],
            ['Runs this week', counts.runsThisWeek],
          ] as const
        ).map(([label, value]) => (
          <div key={label} className="count">
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
