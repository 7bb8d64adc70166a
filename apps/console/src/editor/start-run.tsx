import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';

import { api, type Schemas, unwrap } from '../api/client';
import { ErrorNotice, Field } from '../components/ui';
import type { FlowNode } from './diagram';

type Workflow = Schemas['WorkflowDetailDto'];

/** Start a run of the live version or the draft, from a trigger, with an input. */
export function StartRun({
  workflow,
  triggers,
  beforeStart,
  onStarted,
  onError,
}: {
  workflow: Workflow;
  triggers: FlowNode[];
  beforeStart: (draft: boolean) => Promise<void>;
  onStarted: (run: Schemas['WorkflowRunDto']) => void;
  onError: (error: unknown) => void;
}) {
  const [draft, setDraft] = useState(workflow.publishedVersion === null);
  const [triggerNodeId, setTriggerNodeId] = useState(triggers[0]?.id ?? '');
  const [input, setInput] = useState('');
  const start = useMutation({
    mutationFn: async () => {
      await beforeStart(draft);
      return unwrap(
        api.POST('/api/v1/workflows/{id}/runs', {
          params: { path: { id: workflow.id } },
          body: { input, draft, ...(triggerNodeId ? { triggerNodeId } : {}) },
        }),
      );
    },
    onSuccess: onStarted,
    onError,
  });
  return (
    <form
      className="card"
      aria-label="Start a run"
      onSubmit={(event) => {
        event.preventDefault();
        start.mutate();
      }}
    >
      <h2 style={{ marginTop: 0 }}>Start a run</h2>
      <fieldset>
        <legend>Version</legend>
        <label className="check">
          <input
            type="radio"
            name="run-version"
            checked={!draft}
            disabled={workflow.publishedVersion === null}
            onChange={() => setDraft(false)}
          />
          Live version
          {workflow.publishedVersion === null ? ' (not published yet)' : ` v${workflow.publishedVersion}`}
        </label>
        <label className="check">
          <input type="radio" name="run-version" checked={draft} onChange={() => setDraft(true)} /> Draft
        </label>
      </fieldset>
      <Field label="Trigger">
        {(id) => (
          <select id={id} value={triggerNodeId} onChange={(event) => setTriggerNodeId(event.target.value)}>
            {triggers.map((trigger) => (
              <option key={trigger.id} value={trigger.id}>
                {trigger.id}
                {typeof trigger.data.properties.label === 'string'
                  ? ` — ${trigger.data.properties.label}`
                  : ''}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Input" hint="The trigger's payload: JSON is readable in steps as {{trigger.<path>}}.">
        {(id) => (
          <textarea
            id={id}
            className="code"
            value={input}
            onChange={(event) => setInput(event.target.value)}
          />
        )}
      </Field>
      <ErrorNotice error={start.error} title="Could not start the run." />
      <button type="submit" disabled={start.isPending}>
        {start.isPending ? 'Starting…' : 'Start run'}
      </button>
    </form>
  );
}
