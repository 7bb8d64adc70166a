import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';

import { api, type Schemas, unwrap } from '../api/client';
import { Field, formatDuration, formatTime, QueryView, StatusBadge } from '../components/ui';

type Endpoint = Schemas['NotificationEndpointDto'];
type Delivery = Schemas['NotificationDeliveryDto'];
type DeliveryStatus = Delivery['status'];

const STATUSES: DeliveryStatus[] = ['pending', 'delivered', 'failed'];

/** An endpoint's deliveries, newest first, each with its attempts; narrowed by status. */
export function DeliveriesTable({ endpoint }: { endpoint: Endpoint }) {
  const [status, setStatus] = useState<DeliveryStatus | ''>('');
  const query = useQuery({
    queryKey: ['notification-deliveries', endpoint.id, status],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/notification-endpoints/{id}/deliveries', {
          params: { path: { id: endpoint.id }, query: { limit: 100, ...(status ? { status } : {}) } },
        }),
      ),
    // Pending deliveries change on their own: retries come and go.
    refetchInterval: 5_000,
  });
  return (
    <section className="card" aria-label={`Deliveries to ${endpoint.name}`}>
      <h2 style={{ marginTop: 0 }}>Deliveries to {endpoint.name}</h2>
      <Field label="Status">
        {(id) => (
          <select
            id={id}
            value={status}
            onChange={(event) => setStatus(event.target.value as DeliveryStatus | '')}
          >
            <option value="">Any</option>
            {STATUSES.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        )}
      </Field>
      <QueryView
        query={query}
        isEmpty={(page) => page.data.length === 0}
        empty="No deliveries yet: runs of workflows naming this endpoint appear here when they end."
      >
        {(page) => (
          <div className="table-wrap" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Run</th>
                  <th scope="col">Run ended</th>
                  <th scope="col">Delivery</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Last answer</th>
                  <th scope="col">Next attempt</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((delivery) => (
                  <tr key={delivery.id}>
                    <td>
                      <Link to="/runs/$runId" params={{ runId: delivery.runId }}>
                        <code>{delivery.runId.slice(0, 8)}</code>
                      </Link>
                    </td>
                    <td>
                      <StatusBadge status={delivery.runStatus} />
                    </td>
                    <td>
                      <StatusBadge status={delivery.status} />
                    </td>
                    <td>
                      <Attempts delivery={delivery} />
                    </td>
                    <td>{lastAnswer(delivery)}</td>
                    <td>{formatTime(delivery.nextAttemptAt)}</td>
                    <td>{formatTime(delivery.updatedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryView>
    </section>
  );
}

function lastAnswer(delivery: Delivery): string {
  if (delivery.attempts === 0) return '—';
  if (delivery.lastError === null) return `${delivery.lastResponseStatus ?? ''}`;
  return delivery.lastResponseStatus === null
    ? delivery.lastError
    : `${delivery.lastResponseStatus}: ${delivery.lastError}`;
}

/** The count, and each attempt's outcome behind a disclosure. */
function Attempts({ delivery }: { delivery: Delivery }) {
  if (delivery.outcomes.length === 0) return <>{delivery.attempts}</>;
  return (
    <details>
      <summary>{delivery.attempts}</summary>
      <ol>
        {delivery.outcomes.map((outcome) => (
          <li key={outcome.attempt}>
            {formatTime(outcome.at)}: {outcome.responseStatus ?? 'no answer'}
            {outcome.error ? ` (${outcome.error})` : ''}, {formatDuration(outcome.durationMs)}
          </li>
        ))}
      </ol>
    </details>
  );
}
