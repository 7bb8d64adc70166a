import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { useState } from 'react';

import { api, type Schemas, unwrap } from '../../api/client';
import { ErrorNotice, formatTime, PageHeader, QueryView, SecretOnce } from '../../components/ui';
import { DeliveriesTable } from '../../notifications/deliveries-table';
import { EndpointForm } from '../../notifications/endpoint-form';

type Endpoint = Schemas['NotificationEndpointDto'];

/**
 * Run notifications (docs/notifications.md): the organization's endpoints, which a workflow names in
 * its settings to be told when its runs end, and each endpoint's deliveries with their attempts.
 */
export const Route = createFileRoute('/_signed-in/notifications')({ component: NotificationsPage });

function NotificationsPage() {
  const client = useQueryClient();
  const [shown, setShown] = useState<Endpoint | null>(null);
  const list = useQuery({
    queryKey: ['notification-endpoints'],
    queryFn: () => unwrap(api.GET('/api/v1/notification-endpoints', { params: { query: { limit: 100 } } })),
  });
  const refresh = () => void client.invalidateQueries({ queryKey: ['notification-endpoints'] });
  const remove = useMutation({
    mutationFn: (id: string) =>
      unwrap(api.DELETE('/api/v1/notification-endpoints/{id}', { params: { path: { id } } })),
    onSuccess: (_deleted, id) => {
      if (shown?.id === id) setShown(null);
      refresh();
    },
  });
  const rotate = useMutation({
    mutationFn: async (endpoint: Endpoint) => {
      const { secret } = await unwrap(
        api.POST('/api/v1/notification-endpoints/{id}/secret', { params: { path: { id: endpoint.id } } }),
      );
      return { name: endpoint.name, secret };
    },
  });
  return (
    <>
      <PageHeader title="Notifications" />
      <p className="muted">
        A workflow names endpoints in its settings (<code>settings.notifications</code>) to be told, by a
        signed POST, when its runs end errored, terminated or complete.
      </p>
      <EndpointForm onCreated={refresh} />
      {rotate.data ? (
        <SecretOnce
          label={`New signing secret of ${rotate.data.name}; the previous one no longer signs.`}
          value={rotate.data.secret}
          testId="rotated-secret-value"
        />
      ) : null}
      <ErrorNotice error={rotate.error} title="Could not make a new signing secret." />
      <ErrorNotice error={remove.error} title="Could not delete the endpoint." />
      <QueryView
        query={list}
        isEmpty={(page) => page.data.length === 0}
        empty="No notification endpoints yet."
      >
        {(page) => (
          <div className="table-wrap" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">URL</th>
                  <th scope="col">Id</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((endpoint) => (
                  <tr key={endpoint.id}>
                    <td>{endpoint.name}</td>
                    <td>
                      <code>{endpoint.url}</code>
                    </td>
                    <td>
                      <code>{endpoint.id}</code>
                    </td>
                    <td>{formatTime(endpoint.createdAt)}</td>
                    <td>
                      <div className="row">
                        <button type="button" className="secondary" onClick={() => setShown(endpoint)}>
                          Deliveries to {endpoint.name}
                        </button>
                        <button
                          type="button"
                          className="secondary"
                          disabled={rotate.isPending}
                          onClick={() => {
                            if (
                              window.confirm(
                                `Make a new signing secret for ${endpoint.name}? Its receiver must verify with the new one.`,
                              )
                            )
                              rotate.mutate(endpoint);
                          }}
                        >
                          New secret of {endpoint.name}
                        </button>
                        <button
                          type="button"
                          className="danger"
                          onClick={() => {
                            if (
                              window.confirm(
                                `Delete ${endpoint.name}? Its pending deliveries are dropped, and workflows naming it cannot be published until they no longer do.`,
                              )
                            )
                              remove.mutate(endpoint.id);
                          }}
                        >
                          Delete {endpoint.name}
                        </button>
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryView>
      {shown ? <DeliveriesTable key={shown.id} endpoint={shown} /> : null}
    </>
  );
}
