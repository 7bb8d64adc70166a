import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';

import { browserRequest } from '../api/browser-client';
import { api, type Schemas, unwrap } from '../api/client';
import { ErrorNotice, Field, SecretOnce } from '../components/ui';

type NewEndpoint = Schemas['CreateNotificationEndpointDto'];

/**
 * A new notification endpoint: a name, the `http` or `webhook` connection it goes through, and its
 * HTTPS URL. Its signing secret is shown once, after.
 */
export function EndpointForm({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [connectionId, setConnectionId] = useState('');
  const [url, setUrl] = useState('');
  const connections = useQuery({
    queryKey: ['connections'],
    queryFn: () => browserRequest('GET /app/connections', { query: { limit: 100 } }),
  });
  const usable = (connections.data?.data ?? []).filter(
    (connection) => connection.integrationId === 'http' || connection.integrationId === 'webhook',
  );
  const create = useMutation({
    mutationFn: (body: NewEndpoint) => unwrap(api.POST('/api/v1/notification-endpoints', { body })),
    onSuccess: () => {
      setName('');
      setUrl('');
      onCreated();
    },
  });
  const created = create.data;
  return (
    <>
      <form
        className="card"
        aria-label="Add a notification endpoint"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate({ name, connectionId: connectionId || (usable[0]?.id ?? ''), url });
        }}
      >
        <h2 style={{ marginTop: 0 }}>Add an endpoint</h2>
        <div className="grid-2">
          <Field label="Name">
            {(id) => (
              <input
                id={id}
                value={name}
                required
                maxLength={100}
                onChange={(event) => setName(event.target.value)}
              />
            )}
          </Field>
          <Field
            label="Connection"
            hint="An http connection's headers go with each delivery when the URL is one of its origins."
          >
            {(id) => (
              <select
                id={id}
                value={connectionId || (usable[0]?.id ?? '')}
                required
                onChange={(event) => setConnectionId(event.target.value)}
              >
                {usable.length === 0 ? <option value="">Connect an http or webhook app first</option> : null}
                {usable.map((connection) => (
                  <option key={connection.id} value={connection.id}>
                    {connection.name} ({connection.integrationId})
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        <Field label="URL" hint="HTTPS, on a public address. Each run's end is POSTed here, signed.">
          {(id) => (
            <input
              id={id}
              type="url"
              required
              maxLength={2048}
              placeholder="https://alerts.example.com/flowmesh"
              value={url}
              onChange={(event) => setUrl(event.target.value)}
            />
          )}
        </Field>
        <button type="submit" disabled={create.isPending || usable.length === 0}>
          Add endpoint
        </button>
      </form>
      <ErrorNotice error={connections.error} title="Could not load the connections." />
      <ErrorNotice error={create.error} title="Could not add the endpoint." />
      {created ? (
        <SecretOnce
          label={`Signing secret of ${created.name}: verify deliveries with it (Standard Webhooks).`}
          value={created.secret}
        />
      ) : null}
    </>
  );
}
