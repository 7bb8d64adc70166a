import './operation-progress.css';

import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';

import { api, type Schemas, unwrap } from '../api/client';
import { ErrorNotice } from '../components/ui';

type Operation = Schemas['OperationDto'];

const VERB: Record<Operation['action'], string> = {
  cancel: 'Cancelling',
  rerun: 'Rerunning',
  replay: 'Replaying',
};

/**
 * A bulk cancel, rerun or replay as it goes (`GET /api/v1/operations/{id}`, read every second until it
 * is `complete`): how many it matched, done and failed, and the first failures with why.
 */
export function OperationProgress({ first, onComplete }: { first: Operation; onComplete?: () => void }) {
  const query = useQuery({
    queryKey: ['operation', first.id],
    queryFn: async () => {
      const operation = await unwrap(
        api.GET('/api/v1/operations/{id}', { params: { path: { id: first.id } } }),
      );
      if (operation.status === 'complete') onComplete?.();
      return operation;
    },
    initialData: first,
    refetchInterval: (current) => (current.state.data?.status === 'complete' ? false : 1000),
  });
  const operation = query.data;
  const settled = operation.done + operation.failed;
  const what = operation.action === 'replay' ? 'events' : 'runs';
  return (
    <section className="card operation-progress" aria-label="Bulk operation">
      <p role="status">
        <strong>
          {operation.status === 'complete'
            ? `${VERB[operation.action]} finished`
            : `${VERB[operation.action]}…`}
        </strong>{' '}
        {settled} of {operation.matched} {what} settled: {operation.done} done, {operation.failed} failed.
      </p>
      <progress max={Math.max(1, operation.matched)} value={settled} aria-label="Settled" />
      <ErrorNotice error={query.error} title="Could not read the operation." />
      {operation.failures.length > 0 ? (
        <details>
          <summary>
            {operation.failed} could not be acted on
            {operation.failed > operation.failures.length ? ` (the first ${operation.failures.length})` : ''}
          </summary>
          <ul>
            {operation.failures.map((failure) => (
              <li key={failure.targetId}>
                {operation.action === 'replay' ? (
                  <code>{failure.targetId}</code>
                ) : (
                  <Link to="/runs/$runId" params={{ runId: failure.targetId }}>
                    run {failure.targetId.slice(-8)}
                  </Link>
                )}
                : {failure.message}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </section>
  );
}
