import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';

import { api, type Schemas, unwrap } from '../api/client';
import { Empty, ErrorNotice, Field, formatTime, Loading, StatusBadge } from '../components/ui';

type Status = Schemas['WorkflowRunSummaryPage']['data'][number]['status'][];

const PAGE = 50;

/** Which iterations to list: all, the failed ones, or those still going. */
const SHOWN: Record<string, { label: string; status?: Status }> = {
  all: { label: 'All' },
  failed: { label: 'Failed', status: ['errored', 'terminated'] },
  going: {
    label: 'Not finished',
    status: ['queued', 'running', 'waiting', 'paused', 'waitingForPause', 'rollingBack'],
  },
};

/**
 * The iterations of a loop's step, in item order, a page at a time (`GET /runs/{id}/children?nodeId=`),
 * each linked to its run, whose steps are its own. A 10,000-item loop stays readable: the step is the
 * summary, and the iterations are read here only as far as one asks.
 */
export function LoopIterations({
  runId,
  nodeId,
  going,
}: {
  runId: string;
  nodeId: string;
  /** The loop is still running: the list is read again every few seconds. */
  going: boolean;
}) {
  const [shown, setShown] = useState('all');
  const status = SHOWN[shown]?.status;
  const query = useInfiniteQuery({
    queryKey: ['children', runId, nodeId, shown],
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/api/v1/runs/{id}/children', {
          params: {
            path: { id: runId },
            query: {
              nodeId,
              limit: PAGE,
              ...(status ? { status } : {}),
              ...(pageParam ? { cursor: pageParam } : {}),
            },
          },
        }),
      ),
    initialPageParam: '',
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    refetchInterval: going ? 5000 : false,
  });
  const iterations: Array<Schemas['WorkflowRunSummaryPage']['data'][number]> =
    query.data?.pages.flatMap((page) => page.data) ?? [];
  return (
    <section className="loop-iterations" aria-label={`Iterations of ${nodeId}`}>
      <div className="row">
        <h3>Iterations</h3>
        <Field label="Show">
          {(id) => (
            <select id={id} value={shown} onChange={(event) => setShown(event.target.value)}>
              {Object.entries(SHOWN).map(([value, { label }]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      {query.isPending ? <Loading /> : null}
      <ErrorNotice error={query.error} title="Could not load the iterations." />
      {query.isSuccess && iterations.length === 0 ? (
        <Empty>{shown === 'all' ? 'No iteration has started yet.' : 'No iteration is like that.'}</Empty>
      ) : null}
      {iterations.length > 0 ? (
        <div className="table-wrap" tabIndex={0}>
          <table>
            <thead>
              <tr>
                <th scope="col">Item</th>
                <th scope="col">Run</th>
                <th scope="col">Status</th>
                <th scope="col">Started</th>
              </tr>
            </thead>
            <tbody>
              {iterations.map((iteration) => (
                <tr key={iteration.id} data-testid={`iteration-${iteration.iteration ?? ''}`}>
                  <td>{iteration.iteration ?? ''}</td>
                  <td>
                    <Link to="/runs/$runId" params={{ runId: iteration.id }}>
                      iteration {iteration.iteration ?? ''} · run {iteration.id.slice(-8)}
                    </Link>
                  </td>
                  <td>
                    <StatusBadge status={iteration.status} />
                  </td>
                  <td>{formatTime(iteration.createdAt)}</td>
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
          {query.isFetchingNextPage ? 'Loading…' : 'More iterations'}
        </button>
      ) : null}
    </section>
  );
}
