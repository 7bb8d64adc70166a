import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';

import { api, type Schemas, unwrap } from '../api/client';
import { ErrorNotice, formatTime, QueryView, StatusBadge } from '../components/ui';
import { ReplayEvents } from './replay-events';

/** The app events that reached the workflow's triggers, what each trigger did, and replay. */
export function WorkflowEvents({ workflow }: { workflow: Schemas['WorkflowDetailDto'] }) {
  const client = useQueryClient();
  const query = useQuery({
    queryKey: ['events', workflow.id],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/workflows/{id}/events', {
          params: { path: { id: workflow.id }, query: { limit: 50 } },
        }),
      ),
  });
  const replay = useMutation({
    mutationFn: ({ eventId, triggerNodeId }: { eventId: string; triggerNodeId: string }) =>
      unwrap(
        api.POST('/api/v1/workflows/{id}/events/{eventId}/replay', {
          params: { path: { id: workflow.id, eventId } },
          body: { triggerNodeId },
        }),
      ),
    onSuccess: () =>
      setTimeout(() => void client.invalidateQueries({ queryKey: ['events', workflow.id] }), 1000),
  });
  const triggers = workflow.diagram.nodes
    .filter((node) => node.data.type === 'trigger' && node.data.properties.kind === 'event')
    .map((node) => node.id);
  return (
    <>
      <ReplayEvents workflowId={workflow.id} triggers={triggers} />
      {replay.isSuccess ? (
        <div className="notice success" role="status">
          The event was queued again.
        </div>
      ) : null}
      <ErrorNotice error={replay.error} title="Could not replay the event." />
      <QueryView
        query={query}
        isEmpty={(page) => page.data.length === 0}
        empty="No app events yet. Events reach a workflow through its event triggers once it is published."
      >
        {(page) => (
          <>
            {page.data.map((event) => (
              <article key={event.id} className="card" aria-label={`Event ${event.id}`}>
                <div className="row">
                  <strong>{event.triggerId}</strong>
                  <span className="muted">fired {formatTime(event.firedAt)}</span>
                  <span className="muted">received {formatTime(event.receivedAt)}</span>
                </div>
                <pre>{event.preview}</pre>
                <div className="table-wrap" tabIndex={0}>
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Trigger</th>
                        <th scope="col">Outcome</th>
                        <th scope="col">Run</th>
                        <th scope="col">At</th>
                        <th scope="col">
                          <span className="visually-hidden">Replay</span>
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {event.outcomes.map((outcome) => (
                        <tr key={`${outcome.triggerNodeId}-${outcome.at}`}>
                          <td>{outcome.triggerNodeId}</td>
                          <td>
                            <StatusBadge status={outcome.outcome} />
                            {outcome.error ? <span className="muted"> {outcome.error}</span> : null}
                          </td>
                          <td>
                            {outcome.runId ? (
                              <Link to="/runs/$runId" params={{ runId: outcome.runId }}>
                                {outcome.runId.slice(-8)}
                              </Link>
                            ) : (
                              '—'
                            )}
                          </td>
                          <td>{formatTime(outcome.at)}</td>
                          <td>
                            <button
                              type="button"
                              className="secondary"
                              disabled={replay.isPending}
                              onClick={() =>
                                replay.mutate({ eventId: event.id, triggerNodeId: outcome.triggerNodeId })
                              }
                            >
                              Replay for {outcome.triggerNodeId}
                            </button>
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              </article>
            ))}
          </>
        )}
      </QueryView>
    </>
  );
}
