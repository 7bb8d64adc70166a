import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';

import { api, type Schemas, unwrap } from '../api/client';
import { Empty, ErrorNotice, formatTime, Loading, StatusBadge } from '../components/ui';
import { BulkRuns } from '../runs/bulk-runs';
import type { RunFilter } from '../runs/run-filter';
import { RunFilterForm } from '../runs/run-filter-form';

const PAGE = 50;

/** The workflow's runs, newest first, filtered by the API, a page at a time; and acting on all that match. */
export function WorkflowRuns({ workflow }: { workflow: Schemas['WorkflowDetailDto'] }) {
  const [filter, setFilter] = useState<RunFilter>({});
  const [local, setLocal] = useState({ after: '', before: '' });
  const query = useInfiniteQuery({
    queryKey: ['runs', workflow.id, filter],
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/api/v1/workflows/{id}/runs', {
          params: {
            path: { id: workflow.id },
            query: { ...filter, limit: PAGE, ...(pageParam ? { cursor: pageParam } : {}) },
          },
        }),
      ),
    initialPageParam: '',
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    refetchInterval: 5000,
  });
  const runs = query.data?.pages.flatMap((page) => page.data) ?? [];
  return (
    <>
      <RunFilterForm
        filter={filter}
        local={local}
        onChange={(next, typed) => {
          setFilter(next);
          setLocal(typed);
        }}
      />
      <BulkRuns workflowId={workflow.id} filter={filter} />
      {query.isPending ? <Loading /> : null}
      <ErrorNotice error={query.error} title="Could not load the runs." />
      {query.isSuccess && runs.length === 0 ? <Empty>No runs match these filters.</Empty> : null}
      {runs.length > 0 ? (
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
      ) : null}
      {query.hasNextPage ? (
        <button
          type="button"
          className="secondary"
          disabled={query.isFetchingNextPage}
          onClick={() => void query.fetchNextPage()}
        >
          {query.isFetchingNextPage ? 'Loading…' : 'More runs'}
        </button>
      ) : null}
    </>
  );
}
