import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';

import { api, type Schemas, unwrap } from '../api/client';
import { Empty, formatTime, PageHeader, QueryView, StatusBadge } from '../components/ui';

type Dashboard = Schemas['DashboardDto'];

export function DashboardPage() {
  const query = useQuery({
    queryKey: ['dashboard'],
    queryFn: () => unwrap(api.GET('/api/v1/dashboard')),
    refetchInterval: 30_000,
  });
  return (
    <>
      <PageHeader title="Dashboard" />
      <QueryView query={query}>
        {(dashboard) => (
          <>
            <Attention dashboard={dashboard} />
            <section aria-labelledby="counts-title">
              <h2 id="counts-title">At a glance</h2>
              <dl className="counts">
                {(
                  [
                    ['Projects', dashboard.counts.projects],
                    ['Workflows', dashboard.counts.workflows],
                    ['Published', dashboard.counts.published],
                    ['Connections', dashboard.counts.connections],
                    ['Runs this week', dashboard.counts.runsThisWeek],
                  ] as const
                ).map(([label, value]) => (
                  <div key={label} className="count">
                    <dt>{label}</dt>
                    <dd>{value}</dd>
                  </div>
                ))}
              </dl>
            </section>
            <section aria-labelledby="activity-title">
              <h2 id="activity-title">Runs in the last seven days</h2>
              <ActivityChart days={dashboard.activity} />
            </section>
            <section aria-labelledby="recent-title">
              <h2 id="recent-title">Recent runs</h2>
              {dashboard.runs.length === 0 ? (
                <Empty>No runs yet. Start one from a workflow.</Empty>
              ) : (
                <div className="table-wrap" tabIndex={0}>
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Run</th>
                        <th scope="col">Workflow</th>
                        <th scope="col">Project</th>
                        <th scope="col">Trigger</th>
                        <th scope="col">Status</th>
                        <th scope="col">Started</th>
                      </tr>
                    </thead>
                    <tbody>
                      {dashboard.runs.map((run) => (
                        <tr key={run.id}>
                          <td>
                            <Link to="/runs/$runId" params={{ runId: run.id }}>
                              {run.id.slice(-8)}
                            </Link>
                          </td>
                          <td>
                            <Link to="/workflows/$workflowId" params={{ workflowId: run.workflowId }}>
                              {run.workflowName}
                            </Link>
                          </td>
                          <td>{run.projectName}</td>
                          <td>{run.trigger}</td>
                          <td>
                            <StatusBadge status={run.status} />
                          </td>
                          <td>{formatTime(run.createdAt)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </section>
          </>
        )}
      </QueryView>
    </>
  );
}

function Attention({ dashboard }: { dashboard: Dashboard }) {
  const nothing =
    dashboard.approvals.length === 0 && dashboard.failures.length === 0 && dashboard.triggers.length === 0;
  return (
    <section aria-labelledby="attention-title" className="attention">
      <h2 id="attention-title">Needs attention</h2>
      {nothing ? (
        <Empty>Nothing needs you: no pending approvals, failed steps or unhealthy triggers.</Empty>
      ) : (
        <ul className="attention-list">
          {dashboard.approvals.map((approval) => (
            <li key={`${approval.runId}-${approval.tool}`} className="warn">
              <StatusBadge status="pending" /> Approval for <code>{approval.tool}</code> in{' '}
              <Link to="/runs/$runId" params={{ runId: approval.runId }}>
                {approval.workflowName}
              </Link>{' '}
              <span className="muted">expires {formatTime(approval.expiresAt)}</span>
            </li>
          ))}
          {dashboard.failures.map((failure) => (
            <li key={`${failure.runId}-${failure.step}`} className="bad">
              <StatusBadge status="error" /> Step <code>{failure.step}</code> failed in{' '}
              <Link to="/runs/$runId" params={{ runId: failure.runId }}>
                {failure.workflowName}
              </Link>
              {failure.error ? <span className="muted"> — {failure.error}</span> : null}{' '}
              <span className="muted">{formatTime(failure.at)}</span>
            </li>
          ))}
          {dashboard.triggers.map((trigger) => (
            <li key={`${trigger.workflowId}-${trigger.triggerNodeId}`} className="bad">
              <StatusBadge status={trigger.status} /> Trigger <code>{trigger.triggerNodeId}</code> of{' '}
              <Link to="/workflows/$workflowId" params={{ workflowId: trigger.workflowId }}>
                {trigger.workflowName}
              </Link>
              {trigger.error ? <span className="muted"> — {trigger.error}</span> : null}
              {trigger.health ? <span className="muted"> (connection {trigger.health})</span> : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Seven bars, one per UTC day; the numbers are also in the accessible table it describes. */
function ActivityChart({ days }: { days: Dashboard['activity'] }) {
  const max = Math.max(1, ...days.map((day) => day.runs));
  const width = 560;
  const height = 160;
  const bar = width / days.length;
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${width} ${height + 24}`} role="img" aria-label="Runs per day, last seven days">
        {days.map((day, index) => {
          const h = Math.round((day.runs / max) * (height - 20));
          return (
            <g key={day.date}>
              <rect x={index * bar + 8} y={height - h} width={bar - 16} height={h} rx={3} className="bar" />
              <text x={index * bar + bar / 2} y={height - h - 4} textAnchor="middle" className="bar-value">
                {day.runs}
              </text>
              <text x={index * bar + bar / 2} y={height + 16} textAnchor="middle" className="bar-label">
                {day.date.slice(5)}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption className="visually-hidden">
        {days.map((day) => `${day.date}: ${day.runs} runs`).join(', ')}
      </figcaption>
    </figure>
  );
}
