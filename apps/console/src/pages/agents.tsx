import { useChat } from '@ai-sdk/react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { DefaultChatTransport, type UIMessage } from 'ai';
import { useMemo, useRef, useState } from 'react';

import { api, browserFetch, type Schemas, unwrap } from '../api/client';
import { toApiError } from '../api/errors';
import { Empty, ErrorNotice, Field, formatTime, Loading, PageHeader, QueryView } from '../components/ui';
import { agentRoute } from '../router';

type Agent = Schemas['AgentDto'];
type AgentInput = Schemas['CreateAgentDto'];
type AppGrant = Schemas['AppGrantDto'];

interface Connection {
  id: string;
  integrationId: string;
  name: string;
}
interface Thread {
  id: string;
  title: string;
  runId: string | null;
  createdAt: string;
  updatedAt: string;
}
interface ThreadDetail extends Thread {
  messages: Array<{ role: string; content: unknown; createdAt: string }>;
}

/** The actions each built-in app offers an agent (docs/events.md). */
const APP_ACTIONS: Record<string, string[]> = {
  http: ['http__request'],
  webhook: ['webhook__send'],
  slack: ['slack__post_message'],
};

const THINKING = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;

export function AgentsPage() {
  const navigate = useNavigate();
  const query = useQuery({
    queryKey: ['agents'],
    queryFn: () => unwrap(api.GET('/api/v1/agents', { params: { query: { limit: 100 } } })),
  });
  const [creating, setCreating] = useState(false);
  return (
    <>
      <PageHeader title="Agents">
        <button type="button" onClick={() => setCreating(true)}>
          New agent
        </button>
      </PageHeader>
      {creating ? (
        <AgentForm
          agent={null}
          onSaved={(agent) => void navigate({ to: '/agents/$agentId', params: { agentId: agent.id } })}
          onCancel={() => setCreating(false)}
        />
      ) : null}
      <QueryView query={query} isEmpty={(page) => page.data.length === 0} empty="No agents yet.">
        {(page) => (
          <div className="table-wrap" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Description</th>
                  <th scope="col">Provider</th>
                  <th scope="col">Apps</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((agent) => (
                  <tr key={agent.id}>
                    <td>
                      <Link to="/agents/$agentId" params={{ agentId: agent.id }}>
                        {agent.name}
                      </Link>
                    </td>
                    <td>{agent.description}</td>
                    <td>
                      {agent.provider} {agent.model ? `· ${agent.model}` : ''}
                    </td>
                    <td>{agent.apps.length}</td>
                    <td>{formatTime(agent.updatedAt)}</td>
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

export function AgentPage() {
  const { agentId } = agentRoute.useParams();
  const [tab, setTab] = useState<'settings' | 'chat' | 'threads'>('settings');
  const query = useQuery({
    queryKey: ['agent', agentId],
    queryFn: () => unwrap(api.GET('/api/v1/agents/{id}', { params: { path: { id: agentId } } })),
  });
  return (
    <QueryView query={query}>
      {(agent) => (
        <>
          <PageHeader title={`Agent ${agent.name}`} />
          <div className="tabs" role="tablist" aria-label="Agent">
            {(
              [
                ['settings', 'Settings'],
                ['chat', 'Chat'],
                ['threads', 'Threads'],
              ] as const
            ).map(([key, label]) => (
              <button
                key={key}
                type="button"
                role="tab"
                aria-selected={tab === key}
                onClick={() => setTab(key)}
              >
                {label}
              </button>
            ))}
          </div>
          <div role="tabpanel">
            {tab === 'settings' ? <AgentForm key={agent.id} agent={agent} /> : null}
            {tab === 'chat' ? <Chat agent={agent} /> : null}
            {tab === 'threads' ? <Threads agent={agent} /> : null}
          </div>
        </>
      )}
    </QueryView>
  );
}

function toggle(list: string[], value: string, on: boolean): string[] {
  return on ? [...new Set([...list, value])] : list.filter((item) => item !== value);
}

/** Create or edit an agent, with pickers for its apps and actions, ask-first flags, skills and databases. */
function AgentForm({
  agent,
  onSaved,
  onCancel,
}: {
  agent: Agent | null;
  onSaved?: (agent: Agent) => void;
  onCancel?: () => void;
}) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const [form, setForm] = useState<AgentInput>(() => ({
    name: agent?.name ?? '',
    description: agent?.description ?? '',
    instructions: agent?.instructions ?? '',
    provider: agent?.provider ?? 'gateway',
    model: agent?.model ?? '',
    thinkingLevel: agent?.thinkingLevel ?? 'medium',
    apps: (agent?.apps ?? []).map((grant) => ({ ...grant })),
    skills: agent?.skills ?? [],
    databases: agent?.databases ?? [],
    databaseWrites: agent?.databaseWrites ?? [],
  }));
  const set = <K extends keyof AgentInput>(key: K, value: AgentInput[K]) =>
    setForm((old) => ({ ...old, [key]: value }));
  const connections = useQuery({
    queryKey: ['connections'],
    queryFn: () => browserFetch<{ data: Connection[] }>('/app/connections?limit=100'),
  });
  const skills = useQuery({
    queryKey: ['skills'],
    queryFn: () => unwrap(api.GET('/api/v1/skills', { params: { query: { limit: 100 } } })),
  });
  const databases = useQuery({
    queryKey: ['databases'],
    queryFn: () => unwrap(api.GET('/api/v1/databases', { params: { query: { limit: 100 } } })),
  });
  const save = useMutation({
    mutationFn: () =>
      agent
        ? unwrap(api.PATCH('/api/v1/agents/{id}', { params: { path: { id: agent.id } }, body: form }))
        : unwrap(api.POST('/api/v1/agents', { body: form })),
    onSuccess: (saved) => {
      void client.invalidateQueries({ queryKey: ['agents'] });
      client.setQueryData(['agent', saved.id], saved);
      onSaved?.(saved);
    },
  });
  const remove = useMutation({
    mutationFn: () =>
      unwrap(api.DELETE('/api/v1/agents/{id}', { params: { path: { id: agent?.id ?? '' } } })),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['agents'] });
      void navigate({ to: '/agents' });
    },
  });
  const apps = form.apps ?? [];
  const grantOf = (connection: Connection): AppGrant | undefined =>
    apps.find((grant) => grant.connectionId === connection.id);
  const setGrant = (connection: Connection, change: (grant: AppGrant) => AppGrant | null) => {
    const current = grantOf(connection) ?? {
      connectionId: connection.id,
      integrationId: connection.integrationId,
      actions: [],
      approvals: [],
    };
    const next = change(current);
    set('apps', [
      ...apps.filter((grant) => grant.connectionId !== connection.id),
      ...(next && next.actions.length > 0 ? [next] : []),
    ]);
  };
  return (
    <form
      className="card"
      aria-label={agent ? `Settings of ${agent.name}` : 'New agent'}
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      {agent ? null : <h2 style={{ marginTop: 0 }}>New agent</h2>}
      <div className="grid-2">
        <Field label="Name" hint="Lowercase letters, numbers and single hyphens; unique.">
          {(id) => (
            <input
              id={id}
              value={form.name}
              required
              maxLength={64}
              pattern="[a-z0-9]+(-[a-z0-9]+)*"
              onChange={(e) => set('name', e.target.value)}
            />
          )}
        </Field>
        <Field label="Description">
          {(id) => (
            <input
              id={id}
              value={form.description ?? ''}
              maxLength={1024}
              onChange={(e) => set('description', e.target.value)}
            />
          )}
        </Field>
        <Field label="Provider">
          {(id) => (
            <select
              id={id}
              value={form.provider}
              onChange={(e) => set('provider', e.target.value as AgentInput['provider'])}
            >
              <option value="gateway">AI gateway</option>
              <option value="platform-ai">Platform AI</option>
            </select>
          )}
        </Field>
        <Field label="Model" hint="Empty: the provider's default model.">
          {(id) => <input id={id} value={form.model ?? ''} onChange={(e) => set('model', e.target.value)} />}
        </Field>
        <Field label="Thinking level">
          {(id) => (
            <select
              id={id}
              value={form.thinkingLevel}
              onChange={(e) => set('thinkingLevel', e.target.value as AgentInput['thinkingLevel'])}
            >
              {THINKING.map((level) => (
                <option key={level}>{level}</option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <Field label="Instructions">
        {(id) => (
          <textarea
            id={id}
            value={form.instructions ?? ''}
            onChange={(e) => set('instructions', e.target.value)}
          />
        )}
      </Field>
      <fieldset>
        <legend>Apps</legend>
        {connections.isPending ? <Loading /> : null}
        <ErrorNotice error={connections.error} />
        {connections.data?.data.length === 0 ? (
          <p className="muted">No apps connected yet (Connections).</p>
        ) : null}
        {connections.data?.data.map((connection) => {
          const grant = grantOf(connection);
          return (
            <fieldset key={connection.id}>
              <legend>
                {connection.name} ({connection.integrationId})
              </legend>
              {(APP_ACTIONS[connection.integrationId] ?? []).map((action) => (
                <div key={action} className="row">
                  <label className="check">
                    <input
                      type="checkbox"
                      checked={grant?.actions.includes(action) ?? false}
                      onChange={(e) =>
                        setGrant(connection, (g) => ({
                          ...g,
                          actions: toggle(g.actions, action, e.target.checked),
                          approvals: e.target.checked ? g.approvals : g.approvals.filter((a) => a !== action),
                        }))
                      }
                    />
                    {action} on {connection.name}
                  </label>
                  <label className="check">
                    <input
                      type="checkbox"
                      disabled={!grant?.actions.includes(action)}
                      checked={grant?.approvals.includes(action) ?? false}
                      onChange={(e) =>
                        setGrant(connection, (g) => ({
                          ...g,
                          approvals: toggle(g.approvals, action, e.target.checked),
                        }))
                      }
                    />
                    Ask first: {action} on {connection.name}
                  </label>
                </div>
              ))}
            </fieldset>
          );
        })}
      </fieldset>
      <fieldset>
        <legend>Skills</legend>
        <ErrorNotice error={skills.error} />
        {skills.data?.data.length === 0 ? <p className="muted">No skills yet.</p> : null}
        {skills.data?.data.map((skill) => (
          <label key={skill.id} className="check">
            <input
              type="checkbox"
              checked={form.skills?.includes(skill.id) ?? false}
              onChange={(e) => set('skills', toggle(form.skills ?? [], skill.id, e.target.checked))}
            />
            {skill.name}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Databases</legend>
        <ErrorNotice error={databases.error} />
        {databases.data?.data.length === 0 ? <p className="muted">No databases yet.</p> : null}
        {databases.data?.data.map((database) => (
          <div key={database.id} className="row">
            <label className="check">
              <input
                type="checkbox"
                checked={form.databases?.includes(database.id) ?? false}
                onChange={(e) => {
                  set('databases', toggle(form.databases ?? [], database.id, e.target.checked));
                  if (!e.target.checked)
                    set(
                      'databaseWrites',
                      (form.databaseWrites ?? []).filter((id) => id !== database.id),
                    );
                }}
              />
              Query {database.name}
            </label>
            <label className="check">
              <input
                type="checkbox"
                disabled={!form.databases?.includes(database.id)}
                checked={form.databaseWrites?.includes(database.id) ?? false}
                onChange={(e) =>
                  set('databaseWrites', toggle(form.databaseWrites ?? [], database.id, e.target.checked))
                }
              />
              Write to {database.name}
            </label>
          </div>
        ))}
      </fieldset>
      <ErrorNotice error={save.error} title="Could not save the agent." />
      <ErrorNotice error={remove.error} title="Could not delete the agent." />
      {save.isSuccess && agent ? (
        <div className="notice success" role="status">
          Saved.
        </div>
      ) : null}
      <div className="row">
        <button type="submit" disabled={save.isPending}>
          {agent ? 'Save agent' : 'Create agent'}
        </button>
        {onCancel ? (
          <button type="button" className="secondary" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
        {agent ? (
          <button
            type="button"
            className="danger"
            onClick={() => {
              if (window.confirm(`Delete ${agent.name} and its threads?`)) remove.mutate();
            }}
          >
            Delete agent
          </button>
        ) : null}
      </div>
    </form>
  );
}

const textOf = (message: UIMessage) =>
  message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');

/** Chat with the agent, streamed (AI SDK UI message stream from `/app/agents/{id}/chat`). */
function Chat({ agent }: { agent: Agent }) {
  const thread = useRef<string | undefined>(undefined);
  const [text, setText] = useState('');
  const transport = useMemo(
    () =>
      new DefaultChatTransport<UIMessage<{ threadId?: string }>>({
        api: `/app/agents/${encodeURIComponent(agent.id)}/chat`,
        credentials: 'same-origin',
        prepareSendMessagesRequest: ({ id, messages }) => ({
          body: { id: thread.current ?? id, messages: messages.slice(-1) },
        }),
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          if (!response.ok) {
            const body: unknown = await response.json().catch(() => null);
            throw toApiError(response.status, body);
          }
          return response;
        },
      }),
    [agent.id],
  );
  const chat = useChat<UIMessage<{ threadId?: string }>>({
    transport,
    onFinish: ({ message }) => {
      if (message.metadata?.threadId) thread.current = message.metadata.threadId;
    },
  });
  const busy = chat.status === 'submitted' || chat.status === 'streaming';
  return (
    <section aria-label={`Chat with ${agent.name}`}>
      <div className="chat" aria-live="polite" aria-label="Conversation">
        {chat.messages.length === 0 ? <p className="muted">Say something to {agent.name}.</p> : null}
        {chat.messages.map((message) => (
          <div key={message.id} className={`message ${message.role}`} data-testid={`message-${message.role}`}>
            <span className="visually-hidden">{message.role === 'user' ? 'You: ' : `${agent.name}: `}</span>
            {textOf(message)}
          </div>
        ))}
        {chat.status === 'submitted' ? <Loading label="Thinking…" /> : null}
      </div>
      <ErrorNotice error={chat.error} title="The agent could not answer." />
      <form
        className="row"
        style={{ marginTop: '0.5rem' }}
        onSubmit={(event) => {
          event.preventDefault();
          if (text.trim() === '') return;
          void chat.sendMessage({ text });
          setText('');
        }}
      >
        <label htmlFor="chat-message" className="visually-hidden">
          Message
        </label>
        <input
          id="chat-message"
          style={{ flex: 1 }}
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="Message"
        />
        <button type="submit" disabled={busy}>
          Send
        </button>
        {busy ? (
          <button type="button" className="secondary" onClick={() => void chat.stop()}>
            Stop
          </button>
        ) : null}
      </form>
    </section>
  );
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((part: { type?: string; text?: string; toolName?: string }) =>
        part.type === 'text'
          ? (part.text ?? '')
          : part.toolName
            ? `[${part.type ?? 'tool'}: ${part.toolName}]`
            : '',
      )
      .filter(Boolean)
      .join('\n');
  return JSON.stringify(content);
}

function Threads({ agent }: { agent: Agent }) {
  const [open, setOpen] = useState<string | null>(null);
  const threads = useQuery({
    queryKey: ['threads', agent.id],
    queryFn: () =>
      browserFetch<{ data: Thread[] }>(`/app/agents/${encodeURIComponent(agent.id)}/threads?limit=50`),
  });
  const detail = useQuery({
    queryKey: ['thread', agent.id, open],
    enabled: open !== null,
    queryFn: () =>
      browserFetch<ThreadDetail>(
        `/app/agents/${encodeURIComponent(agent.id)}/threads/${encodeURIComponent(open ?? '')}`,
      ),
  });
  return (
    <div className="grid-2">
      <QueryView
        query={threads}
        isEmpty={(page) => page.data.length === 0}
        empty="No threads yet: chat, or run a workflow with this agent."
      >
        {(page) => (
          <ul className="attention-list">
            {page.data.map((thread) => (
              <li key={thread.id}>
                <button
                  type="button"
                  className="secondary"
                  aria-pressed={open === thread.id}
                  onClick={() => setOpen(thread.id)}
                >
                  {thread.title}
                </button>{' '}
                <span className="muted">{formatTime(thread.updatedAt)}</span>
                {thread.runId ? (
                  <>
                    {' '}
                    ·{' '}
                    <Link to="/runs/$runId" params={{ runId: thread.runId }}>
                      run
                    </Link>
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </QueryView>
      <div>
        {open === null ? (
          <Empty>Choose a thread to read it.</Empty>
        ) : (
          <QueryView query={detail}>
            {(thread) => (
              <div className="chat" aria-label={thread.title}>
                {thread.messages
                  .filter((message) => message.role !== 'system')
                  .map((message, index) => (
                    <div key={index} className={`message ${message.role === 'user' ? 'user' : ''}`}>
                      <strong>{message.role}</strong>: {contentText(message.content)}
                    </div>
                  ))}
              </div>
            )}
          </QueryView>
        )}
      </div>
    </div>
  );
}
