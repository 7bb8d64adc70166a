import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';

import { api, type Schemas, unwrap } from '../api/client';
import { ErrorNotice, PageHeader, QueryView, StatusBadge } from '../components/ui';
import { WorkflowEditor } from '../editor/workflow-editor';
import { workflowRoute } from '../router';
import { WorkflowEvents } from './workflow-events';
import { WorkflowRuns } from './workflow-runs';
import { WorkflowVersions } from './workflow-versions';

const TABS = [
  ['editor', 'Editor'],
  ['runs', 'Runs'],
  ['versions', 'Versions'],
  ['events', 'Events'],
] as const;

export function WorkflowPage() {
  const { workflowId } = workflowRoute.useParams();
  const { tab = 'editor' } = workflowRoute.useSearch();
  const query = useQuery({
    queryKey: ['workflow', workflowId],
    queryFn: () => unwrap(api.GET('/api/v1/workflows/{id}', { params: { path: { id: workflowId } } })),
  });
  return (
    <QueryView query={query}>
      {(workflow) => (
        <>
          <WorkflowHeader workflow={workflow} />
          <div className="tabs" role="tablist" aria-label="Workflow">
            {TABS.map(([key, label]) => (
              <Link
                key={key}
                to="/workflows/$workflowId"
                params={{ workflowId }}
                search={{ tab: key }}
                role="tab"
                aria-selected={tab === key}
              >
                {label}
              </Link>
            ))}
          </div>
          <div role="tabpanel">
            {tab === 'runs' ? (
              <WorkflowRuns workflow={workflow} />
            ) : tab === 'versions' ? (
              <WorkflowVersions workflow={workflow} />
            ) : tab === 'events' ? (
              <WorkflowEvents workflow={workflow} />
            ) : (
              <WorkflowEditor key={workflow.id} workflow={workflow} />
            )}
          </div>
        </>
      )}
    </QueryView>
  );
}

function WorkflowHeader({ workflow }: { workflow: Schemas['WorkflowDetailDto'] }) {
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
