import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { browserFetch } from '../api/client';
import { managesOrganization, useMember } from '../auth/session';
import {
  ErrorNotice,
  Field,
  formatTime,
  PageHeader,
  QueryView,
  SaveOrCancel,
  SecretOnce,
  StatusBadge,
} from '../components/ui';

interface Connection {
  id: string;
  integrationId: 'http' | 'webhook' | 'slack';
  name: string;
  health: 'healthy' | 'unhealthy';
  /** `http` with headers: where they may be sent; empty when nowhere yet. */
  allowedOrigins?: string[];
  createdAt: string;
  updatedAt: string;
  secret?: string;
  sendingSecret?: string;
}

const INTEGRATIONS = {
  http: 'HTTP requests (action http__request)',
  webhook: 'Incoming webhooks (trigger webhook/received) and outgoing ones (webhook__send)',
  slack: 'Slack messages through an incoming-webhook URL (slack__post_message)',
} as const;

const ORIGINS_HINT =
  'Scheme, host and port, such as https://api.example.com, separated by spaces. Requests to other ' +
  'origins, and redirects to them, go without the headers.';

/** Origins as typed: separated by spaces, commas or lines. */
const originsOf = (text: string) => text.split(/[\s,]+/).filter((origin) => origin !== '');

/**
 * App connections (browser-only `/app/connections`): credentials go in and never come back. Any
 * member connects an app; owners and admins also change where an http connection's headers go, make
 * a webhook connection a new sending secret, and delete.
 */
export function ConnectionsPage() {
  const client = useQueryClient();
  const manager = managesOrganization(useMember().role);
  const [integrationId, setIntegrationId] = useState<Connection['integrationId']>('webhook');
  const [name, setName] = useState('');
  const [headers, setHeaders] = useState('');
  const [origins, setOrigins] = useState('');
  const [webhookUrl, setWebhookUrl] = useState('');
  const [formError, setFormError] = useState<string | null>(null);
  const [editing, setEditing] = useState<Connection | null>(null);
  const list = useQuery({
    queryKey: ['connections'],
    queryFn: () => browserFetch<{ data: Connection[] }>('/app/connections?limit=100'),
  });
  const refresh = () => void client.invalidateQueries({ queryKey: ['connections'] });
  const create = useMutation({
    mutationFn: (body: { integrationId: string; name: string; config?: Record<string, unknown> }) =>
      browserFetch<Connection>('/app/connections', { method: 'POST', body }),
    onSuccess: () => {
      setName('');
      setHeaders('');
      setOrigins('');
      setWebhookUrl('');
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) =>
      browserFetch(`/app/connections/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: refresh,
  });
  const rotate = useMutation({
    mutationFn: async (connection: Connection) => {
      const { sendingSecret } = await browserFetch<{ sendingSecret: string }>(
        `/app/connections/${encodeURIComponent(connection.id)}/sending-secret`,
        { method: 'POST', body: {} },
      );
      return { name: connection.name, sendingSecret };
    },
  });
  const submit = () => {
    setFormError(null);
    let config: Record<string, unknown> | undefined;
    if (integrationId === 'slack') config = { webhookUrl };
    if (integrationId === 'http' && headers.trim() !== '') {
      try {
        config = { headers: JSON.parse(headers) as unknown, allowedOrigins: originsOf(origins) };
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
          <>
            <Field label="Headers sent with requests (JSON, optional)">
              {(id) => (
                <textarea
                  id={id}
                  className="code"
                  value={headers}
                  onChange={(event) => setHeaders(event.target.value)}
                />
              )}
            </Field>
            <Field label="Origins the headers may be sent to (required with headers)" hint={ORIGINS_HINT}>
              {(id) => (
                <input
                  id={id}
                  value={origins}
                  required={headers.trim() !== ''}
                  onChange={(event) => setOrigins(event.target.value)}
                />
              )}
            </Field>
          </>
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
            the Standard Webhooks way with the signing secret. What <code>webhook__send</code> sends is signed
            with the sending secret instead: give that one to its receivers.
          </p>
          {created.secret ? <SecretOnce label="Signing secret." value={created.secret} /> : null}
          {created.sendingSecret ? (
            <SecretOnce label="Sending secret." value={created.sendingSecret} testId="sending-secret-value" />
          ) : null}
        </div>
      ) : created ? (
        <div className="notice success" role="status">
          Connected {created.name}.
        </div>
      ) : null}
      {editing ? (
        <OriginsForm
          key={editing.id}
          connection={editing}
          onDone={() => {
            setEditing(null);
            refresh();
          }}
        />
      ) : null}
      {rotate.data ? (
        <SecretOnce
          label={`New sending secret of ${rotate.data.name}; the previous one no longer signs.`}
          value={rotate.data.sendingSecret}
          testId="rotated-secret-value"
        />
      ) : null}
      <ErrorNotice error={rotate.error} title="Could not make a new sending secret." />
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
                  <th scope="col">Headers go to</th>
                  <th scope="col">Created</th>
                  {manager ? (
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  ) : null}
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
                    <td>
                      <HeadersGoTo origins={connection.allowedOrigins} />
                    </td>
                    <td>{formatTime(connection.createdAt)}</td>
                    {manager ? (
                      <td>
                        <div className="row">
                          {connection.allowedOrigins ? (
                            <button
                              type="button"
                              className="secondary"
                              onClick={() => setEditing(connection)}
                            >
                              Set origins of {connection.name}
                            </button>
                          ) : null}
                          {connection.integrationId === 'webhook' ? (
                            <button
                              type="button"
                              className="secondary"
                              disabled={rotate.isPending}
                              onClick={() => {
                                if (
                                  window.confirm(
                                    `Make a new sending secret for ${connection.name}? Receivers must verify with the new one.`,
                                  )
                                )
                                  rotate.mutate(connection);
                              }}
                            >
                              New sending secret of {connection.name}
                            </button>
                          ) : null}
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
                        </div>
                      </td>
                    ) : null}
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

/** An http connection's allowed origins; none for one made before connections named them. */
function HeadersGoTo({ origins }: { origins: string[] | undefined }) {
  if (!origins) return <>—</>;
  if (origins.length === 0) {
    return <span className="badge bad">nowhere: an owner or admin sets its origins</span>;
  }
  return <>{origins.join(' ')}</>;
}

/** Owners and admins: where an http connection's headers may go. */
function OriginsForm({ connection, onDone }: { connection: Connection; onDone: () => void }) {
  const [origins, setOrigins] = useState((connection.allowedOrigins ?? []).join(' '));
  const save = useMutation({
    mutationFn: () =>
      browserFetch<Connection>(`/app/connections/${encodeURIComponent(connection.id)}`, {
        method: 'PATCH',
        body: { allowedOrigins: originsOf(origins) },
      }),
    onSuccess: onDone,
  });
  return (
    <form
      className="card"
      aria-label={`Origins of ${connection.name}`}
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      <Field label={`Origins the headers of ${connection.name} may be sent to`} hint={ORIGINS_HINT}>
        {(id) => (
          <input id={id} value={origins} required onChange={(event) => setOrigins(event.target.value)} />
        )}
      </Field>
      <ErrorNotice error={save.error} title="Could not save the origins." />
      <SaveOrCancel label="Save origins" pending={save.isPending} onCancel={onDone} />
    </form>
  );
}
