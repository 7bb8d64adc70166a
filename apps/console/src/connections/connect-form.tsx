import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';

import { browserRequest } from '../api/browser-client';
import type { Connection, NewConnection } from '../api/browser-routes';
import { issuesAt, withoutIssuesAt } from '../api/errors';
import { ErrorNotice, Field, SecretOnce } from '../components/ui';
import { MCP_FIELD_PATHS, McpServerFields, NO_MCP_SERVER } from './mcp-server-fields';
import { mcpConfigOf } from './mcp.util';
import { ORIGINS_HINT, originsOf } from './origins-form';

const INTEGRATIONS = {
  http: 'HTTP requests (action http__request)',
  webhook: 'Incoming webhooks (trigger webhook/received) and outgoing ones (webhook__send)',
  slack: 'Slack messages through an incoming-webhook URL (slack__post_message)',
  mcp: "An MCP server's tools, for agents (mcp__<tool>)",
} as const;

/**
 * Connect an app (any member); a webhook's URL and its two secrets are shown once, after. An MCP
 * server's token and headers are sent once and never come back: the fields are emptied once it is in.
 */
export function ConnectForm({ onConnected }: { onConnected: () => void }) {
  const [integrationId, setIntegrationId] = useState<Connection['integrationId']>('webhook');
  const [name, setName] = useState('');
  const [headers, setHeaders] = useState('');
  const [origins, setOrigins] = useState('');
  const [webhookUrl, setWebhookUrl] = useState('');
  const [mcpServer, setMcpServer] = useState(NO_MCP_SERVER);
  const [formError, setFormError] = useState<string | null>(null);
  const [headersIssue, setHeadersIssue] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: (body: NewConnection) => browserRequest('POST /app/connections', { body }),
    onSuccess: () => {
      setName('');
      setHeaders('');
      setOrigins('');
      setWebhookUrl('');
      setMcpServer(NO_MCP_SERVER);
      onConnected();
    },
  });
  const submit = () => {
    setFormError(null);
    setHeadersIssue(null);
    let config: Record<string, unknown> | undefined;
    if (integrationId === 'slack') config = { webhookUrl };
    if (integrationId === 'mcp') {
      const made = mcpConfigOf(mcpServer);
      if ('issue' in made) {
        setHeadersIssue(made.issue.message);
        return;
      }
      config = made.config;
    }
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
  const mcp = integrationId === 'mcp';
  const mcpIssueAt = (path: string) =>
    (path === 'config.headers' ? headersIssue : null) ?? issuesAt(create.error, path)[0];
  return (
    <>
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
        {mcp ? <McpServerFields value={mcpServer} onChange={setMcpServer} issueAt={mcpIssueAt} /> : null}
        {formError ? (
          <div className="notice error" role="alert">
            {formError}
          </div>
        ) : null}
        <button type="submit" disabled={create.isPending}>
          Connect
        </button>
        {create.isPending && mcp ? (
          <p className="muted" role="status">
            Asking the server for its tools…
          </p>
        ) : null}
      </form>
      <ErrorNotice
        error={mcp ? withoutIssuesAt(create.error, MCP_FIELD_PATHS) : create.error}
        title="Could not connect the app."
      />
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
    </>
  );
}
