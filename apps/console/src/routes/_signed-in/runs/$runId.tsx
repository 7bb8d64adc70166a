import { useQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';

import { api, unwrap } from '../../../api/client';
import { QueryView } from '../../../components/ui';
import { useLiveRun } from '../../../runs/live-run';
import { RunView } from '../../../runs/run-view';

export const Route = createFileRoute('/_signed-in/runs/$runId')({ component: RunPage });

const FINAL = new Set(['complete', 'errored', 'terminated', 'unknown']);

function RunPage() {
  const { runId } = Route.useParams();
  const query = useQuery({
    queryKey: ['run', runId],
    queryFn: () => unwrap(api.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } })),
    // The stream says when a held run starts, not when it moves to another gate or on to the queue.
    refetchInterval: (current) => {
      const run = current.state.data;
      return run?.status === 'queued' && run.heldBy !== undefined ? 5_000 : false;
    },
  });
  const live = useLiveRun(runId);
  return (
    <QueryView query={query}>
      {(run) => <RunView run={run} live={FINAL.has(run.status) ? 'ended' : live} />}
    </QueryView>
  );
}
