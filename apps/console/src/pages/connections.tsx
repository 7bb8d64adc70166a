import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { browserFetch } from '../api/client';
import {
  ErrorNotice,
  Field,
  formatTime,
  PageHeader,
  QueryView,
  SecretOnce,
  StatusBadge,
} from '../components/ui';

interface Connection {
  id: string;
  integrationId: 'http' | 'webhook' | 'slack';
  name: string;
  health: 'healthy' | 'unhealthy';
  createdAt: string;
  updatedAt: string;
  secret?: string;
}

const INTEGRATIONS = {
  http: 'HTTP requests (action http__request)',
  webhook: 'Incoming webhooks (trigger webhook/received) and outgoing ones (webhook__send)',
  slack: 'Slack messages through an incoming-webhook URL (slack__post_message)',
} as const;

/** App connections (browser-only `/app/connections`): credentials go in and never come back. */
export function ConnectionsPage() {
  const client = useQueryClient();
  const [integrationId, setIntegrationId] = useState<Connection['integrationId']>('webhook');
  const [name, setName] = useState('');
  const [headers, setHeaders] = useState('');
  const [webhookUrl, setWebhookUrl] = useState('');
  const [formError, setFormError] = useState<string | null>(null);
  const list = useQuery({
    queryKey: ['connections'],
    queryFn: () => browserFetch<{ data: Connection[] }>('/app/connections?limit=100'),
  });
  const create = useMutation({
    mutationFn: (body: { integrationId: string; name: string; config?: Record<string, unknown> }) =>
      browserFetch<Connection>('/app/connections', { method: 'POST', body }),
    onSuccess: () => {
      setName('');
      setHeaders('');
      setWebhookUrl('');
      void client.invalidateQueries({ queryKey: ['connections'] });
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) =>
      browserFetch(`/app/connections/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['connections'] }),
  });
  const submit = () => {
    setFormError(null);
    let config: Record<string, unknown> | undefined;
    if (integrationId === 'slack') config = { webhookUrl };
    if (integrationId === 'http' && headers.trim() !== '') {
      try {
        config = { headers: JSON.parse(headers) as unknown };
      } catch {
        setFormError('The headers are not valid JSON, e.g. {"Authorization": "Bearer …"}.');
        return;
      }
    }
    create.mutate({ integrationId, name, ...(config ? { config } : {}) });
  };
  const created = create.data;
  return (
    <>
      <PageHeader title="Connections" />
      <form
        className="card"
        aria-label="Connect an app"
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <h2 style={{ marginTop: 0 }}>Connect an app</h2>
        <div className="grid-2">
          <Field label="App">
            {(id) => (
              <select
                id={id}
                value={integrationId}
                onChange={(event) => setIntegrationId(event.target.value as Connection['integrationId'])}
              >
                {Object.entries(INTEGRATIONS).map(([value, label]) => (
                  <option key={value} value={value}>
                    {value} — {label}
                  </option>
                ))}
              </select>
            )}
          </Field>
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
        </div>
        {integrationId === 'slack' ? (
          <Field label="Slack incoming-webhook URL">
            {(id) => (
              <input
                id={id}
                type="url"
                required
                value={webhookUrl}
                onChange={(event) => setWebhookUrl(event.target.value)}
              />
            )}
          </Field>
        ) : null}
        {integrationId === 'http' ? (
          <Field label="Headers sent with every request (JSON, optional)">
            {(id) => (
              <textarea
                id={id}
                className="code"
                value={headers}
                onChange={(event) => setHeaders(event.target.value)}
              />
            )}
          </Field>
        ) : null}
        {formError ? (
          <div className="notice error" role="alert">
            {formError}
          </div>
        ) : null}
        <button type="submit" disabled={create.isPending}>
          Connect
        </button>
      </form>
      <ErrorNotice error={create.error} title="Could not connect the app." />
      {created?.integrationId === 'webhook' ? (
        <div className="card">
          <p>
            Send events to{' '}
            <code data-testid="webhook-url">{`${window.location.origin}/hooks/${created.id}`}</code>, signed
            the Standard Webhooks way with this secret.
          </p>
          {created.secret ? <SecretOnce label="Signing secret." value={created.secret} /> : null}
        </div>
      ) : created ? (
        <div className="notice success" role="status">
          Connected {created.name}.
        </div>
      ) : null}
      <ErrorNotice error={remove.error} title="Could not delete the connection." />
      <QueryView query={list} isEmpty={(page) => page.data.length === 0} empty="No apps connected yet.">
        {(page) => (
          <div className="table-wrap" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">App</th>
                  <th scope="col">Health</th>
                  <th scope="col">Webhook URL</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span className="visually-hidden">Delete</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((connection) => (
                  <tr key={connection.id}>
                    <td>{connection.name}</td>
                    <td>{connection.integrationId}</td>
                    <td>
                      <StatusBadge status={connection.health} />
                    </td>
                    <td>
                      {connection.integrationId === 'webhook' ? <code>/hooks/{connection.id}</code> : '—'}
                    </td>
                    <td>{formatTime(connection.createdAt)}</td>
                    <td>
                      <button
                        type="button"
                        className="danger"
                        onClick={() => {
                          if (
                            window.confirm(
                              `Delete ${connection.name}? Triggers and actions using it stop working.`,
                            )
                          )
                            remove.mutate(connection.id);
                        }}
                      >
                        Delete {connection.name}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryView>
    </>
  );
}
