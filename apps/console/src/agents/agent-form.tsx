import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useState } from 'react';

import { api, type Schemas, unwrap } from '../api/client';
import { ErrorNotice, Field } from '../components/ui';
import { AppGrants, DatabaseGrants, SkillGrants } from './agent-grants';

type Agent = Schemas['AgentDto'];
type AgentInput = Schemas['CreateAgentDto'];

const THINKING = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;

/** Create or edit an agent, with pickers for its apps and actions, ask-first flags, skills and databases. */
export function AgentForm({
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
      <AppGrants apps={form.apps ?? []} onChange={(apps) => set('apps', apps)} />
      <SkillGrants skills={form.skills ?? []} onChange={(skills) => set('skills', skills)} />
      <DatabaseGrants
        databases={form.databases ?? []}
        writes={form.databaseWrites ?? []}
        onChange={(databases, databaseWrites) => setForm((old) => ({ ...old, databases, databaseWrites }))}
      />
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
