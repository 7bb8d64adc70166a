import '../../../components/tabs.css';

import { useQuery } from '@tanstack/react-query';
import { createFileRoute, Link } from '@tanstack/react-router';

import { api, unwrap } from '../../../api/client';
import { QueryView } from '../../../components/ui';
import { WorkflowEditor } from '../../../editor/workflow-editor';
import { WorkflowEvents } from '../../../workflows/workflow-events';
import { WorkflowHeader } from '../../../workflows/workflow-header';
import { WorkflowRuns } from '../../../workflows/workflow-runs';
import { WorkflowVersions } from '../../../workflows/workflow-versions';

export const Route = createFileRoute('/_signed-in/workflows/$workflowId')({
  component: WorkflowPage,
  validateSearch: (search: Record<string, unknown>): { tab?: string; version?: number } => ({
    ...(typeof search.tab === 'string' ? { tab: search.tab } : {}),
    ...(typeof search.version === 'number' ? { version: search.version } : {}),
  }),
});

const TABS = [
  ['editor', 'Editor'],
  ['runs', 'Runs'],
  ['versions', 'Versions'],
  ['events', 'Events'],
] as const;

function WorkflowPage() {
  const { workflowId } = Route.useParams();
  const { tab = 'editor' } = Route.useSearch();
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
