import { useQuery } from '@tanstack/react-query';
import { createFileRoute, Link } from '@tanstack/react-router';

import { api, unwrap } from '../../api/client';
import { Empty, formatTime, PageHeader, QueryView, StatusBadge } from '../../components/ui';
import { ActivityChart } from '../../dashboard/activity-chart';
import { Attention } from '../../dashboard/attention';
import { Counts } from '../../dashboard/counts';
import { HeldRuns } from '../../dashboard/held-runs';
import { UnhealthyConnections } from '../../dashboard/unhealthy-connections';

export const Route = createFileRoute('/_signed-in/')({ component: DashboardPage });

function DashboardPage() {
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
            <UnhealthyConnections connections={dashboard.unhealthyConnections} />
            <HeldRuns held={dashboard.held} />
            <Counts counts={dashboard.counts} />
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
