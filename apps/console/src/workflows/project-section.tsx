import { useMutation, useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';

import { api, type Schemas, unwrap } from '../api/client';
import { ErrorNotice, Field, formatTime, QueryView, StatusBadge } from '../components/ui';
import { starterDiagram } from '../editor/diagram';

/** A project's workflows, and a form to make one there. */
export function ProjectSection({ project }: { project: Schemas['ProjectDto'] }) {
  const navigate = useNavigate();
  const workflows = useQuery({
    queryKey: ['workflows', project.id],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/projects/{projectId}/workflows', {
          params: { path: { projectId: project.id }, query: { limit: 100 } },
        }),
      ),
  });
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: (workflowName: string) =>
      unwrap(
        api.POST('/api/v1/projects/{projectId}/workflows', {
          params: { path: { projectId: project.id } },
          body: { name: workflowName, description: null, diagram: starterDiagram() },
        }),
      ),
    onSuccess: (workflow) =>
      void navigate({ to: '/workflows/$workflowId', params: { workflowId: workflow.id } }),
  });
  const headingId = `project-${project.id}`;
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>{project.name}</h2>
      {project.description ? <p className="muted">{project.description}</p> : null}
      <QueryView
        query={workflows}
        isEmpty={(page) => page.data.length === 0}
        empty="No workflows in this project yet."
      >
        {(page) => (
          <div className="table-wrap" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Workflow</th>
                  <th scope="col">Live version</th>
                  <th scope="col">State</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((workflow) => (
                  <tr key={workflow.id}>
                    <td>
                      <Link to="/workflows/$workflowId" params={{ workflowId: workflow.id }}>
                        {workflow.name}
                      </Link>
                    </td>
                    <td>
                      {workflow.publishedVersion === null ? 'draft only' : `v${workflow.publishedVersion}`}
                    </td>
                    <td>
                      {workflow.pausedAt ? (
                        <StatusBadge status="paused" />
                      ) : workflow.publishedVersion === null ? (
                        <StatusBadge status="unknown" />
                      ) : (
                        <StatusBadge status="active" />
                      )}
                    </td>
                    <td>{formatTime(workflow.updatedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryView>
      <form
        className="row"
        style={{ marginTop: '0.75rem' }}
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate(name);
        }}
      >
        <Field label={`New workflow in ${project.name}`}>
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
        <button type="submit" disabled={create.isPending}>
          Create workflow
        </button>
      </form>
      <ErrorNotice error={create.error} title="Could not create the workflow." />
    </section>
  );
}
