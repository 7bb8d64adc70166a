import { useQuery } from '@tanstack/react-query';

import { api, type Schemas, unwrap } from '../api/client';
import { ErrorNotice } from '../components/ui';
import { FlowControlSettings } from './flow-control-settings';

type Settings = Schemas['DiagramSettings'];

/**
 * The diagram's `settings` (docs/workflows.md): what a failed run does (`onError`), which workflow
 * it starts (`errorWorkflowId`, picked among this project's other workflows), whether MCP clients may
 * run it (`mcp`, docs/mcp.md), and when runs may start (flow control, docs/flow-control.md).
 */
export function DiagramSettingsPanel({
  workflowId,
  projectId,
  settings,
  onChange,
}: {
  workflowId: string;
  projectId: string;
  settings: Settings | undefined;
  onChange: (settings: Settings) => void;
}) {
  const workflows = useQuery({
    queryKey: ['workflows', projectId, 'error-workflow-choices'],
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/api/v1/projects/{projectId}/workflows', {
            params: { path: { projectId }, query: { limit: 100 } },
          }),
        )
      ).data.filter((workflow) => workflow.id !== workflowId),
  });
  const current = settings ?? {};
  const errorWorkflowId = typeof current.errorWorkflowId === 'string' ? current.errorWorkflowId : '';
  const set = (changes: Partial<Settings>) => {
    const next: Record<string, unknown> = { ...current, ...changes };
    for (const [key, value] of Object.entries(next)) if (value === undefined) delete next[key];
    onChange(next as Settings);
  };
  return (
    <details className="card">
      <summary>Settings</summary>
      <div className="field">
        <label htmlFor="settings-on-error">If a run fails</label>
        <select
          id="settings-on-error"
          value={current.onError ?? 'stop'}
          onChange={(event) => set({ onError: event.target.value === 'rollback' ? 'rollback' : undefined })}
        >
          <option value="stop">Stop</option>
          <option value="rollback">Roll back (run each action&apos;s compensate)</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor="settings-error-workflow">Error workflow</label>
        <ErrorNotice error={workflows.error} />
        <select
          id="settings-error-workflow"
          value={errorWorkflowId}
          onChange={(event) => set({ errorWorkflowId: event.target.value || undefined })}
        >
          <option value="">— none —</option>
          {(workflows.data ?? []).map((workflow) => (
            <option key={workflow.id} value={workflow.id}>
              {workflow.name}
            </option>
          ))}
          {errorWorkflowId !== '' &&
          !(workflows.data ?? []).some((workflow) => workflow.id === errorWorkflowId) ? (
            <option value={errorWorkflowId}>{errorWorkflowId}</option>
          ) : null}
        </select>
        <small className="muted">
          Started with a description of the failure when a run of a published version fails (after its retries
          and any rollback).
        </small>
      </div>
      <div className="field">
        <label>
          <input
            type="checkbox"
            checked={current.mcp?.enabled === true}
            onChange={(event) => set({ mcp: event.target.checked ? { enabled: true } : undefined })}
          />{' '}
          Offer as an MCP tool
        </label>
        <small className="muted">
          Once published, MCP clients with an organization key can run it from <code>/mcp</code>{' '}
          (docs/mcp.md).
        </small>
      </div>
      <FlowControlSettings settings={current} onChange={set} />
    </details>
  );
}
