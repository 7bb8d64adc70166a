import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';

import { api, type Schemas, unwrap } from '../api/client';
import { Empty, formatTime, QueryView, StatusBadge, statusLabel } from '../components/ui';

const STATUSES = [
  'queued',
  'running',
  'waiting',
  'waitingForPause',
  'paused',
  'rollingBack',
  'complete',
  'errored',
  'terminated',
  'unknown',
] as const;

/** The workflow's recent runs (the last 100), filtered by status in the browser. */
export function WorkflowRuns({ workflow }: { workflow: Schemas['WorkflowDetailDto'] }) {
  const [status, setStatus] = useState('');
  const query = useQuery({
    queryKey: ['runs', workflow.id],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/workflows/{id}/runs', {
          params: { path: { id: workflow.id }, query: { limit: 100 } },
        }),
      ),
    refetchInterval: 5000,
  });
  return (
    <>
      <div className="row" style={{ marginBottom: '0.75rem' }}>
        <label htmlFor="run-status">Status</label>
        <select id="run-status" value={status} onChange={(event) => setStatus(event.target.value)}>
          <option value="">All</option>
          {STATUSES.map((value) => (
            <option key={value} value={value}>
              {statusLabel(value)}
            </option>
          ))}
        </select>
      </div>
      <QueryView
        query={query}
        isEmpty={(page) => page.data.length === 0}
        empty="No runs yet: start one from the editor."
      >
        {(page) => {
          const runs = page.data.filter((run) => status === '' || run.status === status);
          if (runs.length === 0)
            return (
              <Empty>
                No {statusLabel(status)} runs among the last {page.data.length}.
              </Empty>
            );
          return (
            <div className="table-wrap" tabIndex={0}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Run</th>
                    <th scope="col">Status</th>
                    <th scope="col">Version</th>
                    <th scope="col">Trigger</th>
                    <th scope="col">Started</th>
                  </tr>
                </thead>
                <tbody>
                  {runs.map((run) => (
                    <tr key={run.id}>
                      <td>
                        <Link to="/runs/$runId" params={{ runId: run.id }}>
                          {run.id.slice(-8)}
                        </Link>
                      </td>
                      <td>
                        <StatusBadge status={run.status} />
                      </td>
                      <td>{run.version === null ? 'draft' : `v${run.version}`}</td>
                      <td>
                        {run.trigger}
                        {run.triggerNodeId ? ` (${run.triggerNodeId})` : ''}
                      </td>
                      <td>{formatTime(run.createdAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          );
        }}
      </QueryView>
    </>
  );
}
