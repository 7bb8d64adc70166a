import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';

import { api, type Schemas, unwrap } from '../api/client';
import { ErrorNotice, PageHeader, StatusBadge } from '../components/ui';

/** The workflow's name and state, with pause or resume and delete. */
export function WorkflowHeader({ workflow }: { workflow: Schemas['WorkflowDetailDto'] }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const refresh = () => client.invalidateQueries({ queryKey: ['workflow', workflow.id] });
  const pause = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/v1/workflows/{id}/pause', { params: { path: { id: workflow.id } } })),
    onSuccess: () => void refresh(),
  });
  const resume = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/v1/workflows/{id}/resume', { params: { path: { id: workflow.id } } })),
    onSuccess: () => void refresh(),
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/workflows/{id}', { params: { path: { id: workflow.id } } })),
    onSuccess: () => void navigate({ to: '/workflows' }),
  });
  return (
    <>
      <PageHeader title={workflow.name}>
        {workflow.publishedVersion === null ? (
          <StatusBadge status="draft only" />
        ) : (
          <span className="badge info">live v{workflow.publishedVersion}</span>
        )}
        {workflow.pausedAt ? <StatusBadge status="paused" /> : null}
        {workflow.publishedVersion === null ? null : workflow.pausedAt ? (
          <button
            type="button"
            className="secondary"
            onClick={() => resume.mutate()}
            disabled={resume.isPending}
          >
            Resume
          </button>
        ) : (
          <button
            type="button"
            className="secondary"
            onClick={() => pause.mutate()}
            disabled={pause.isPending}
          >
            Pause
          </button>
        )}
        <button
          type="button"
          className="danger"
          onClick={() => {
            if (window.confirm(`Delete ${workflow.name}, its versions and its runs?`)) remove.mutate();
          }}
        >
          Delete
        </button>
      </PageHeader>
      {workflow.nextRunAt ? (
        <p className="muted">Next scheduled run: {new Date(workflow.nextRunAt).toLocaleString()}</p>
      ) : null}
      <ErrorNotice error={pause.error ?? resume.error ?? remove.error} />
    </>
  );
}
