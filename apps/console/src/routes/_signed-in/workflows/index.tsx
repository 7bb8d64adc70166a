import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';

import { api, unwrap } from '../../../api/client';
import { NewWorkflowAssistant } from '../../../assistant/new-workflow-assistant';
import { ErrorNotice, PageHeader, QueryView } from '../../../components/ui';
import { ProjectSection } from '../../../workflows/project-section';

export const Route = createFileRoute('/_signed-in/workflows/')({ component: WorkflowsPage });

function WorkflowsPage() {
  const client = useQueryClient();
  const projects = useQuery({
    queryKey: ['projects'],
    queryFn: () => unwrap(api.GET('/api/v1/projects', { params: { query: { limit: 100 } } })),
  });
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: (projectName: string) =>
      unwrap(api.POST('/api/v1/projects', { body: { name: projectName, description: null } })),
    onSuccess: () => {
      setName('');
      void client.invalidateQueries({ queryKey: ['projects'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(name);
  };
  return (
    <>
      <PageHeader title="Workflows" />
      <form className="card row" onSubmit={submit} aria-label="Create a project">
        <label htmlFor="new-project">New project</label>
        <input
          id="new-project"
          value={name}
          required
          maxLength={100}
          placeholder="Sales ops"
          onChange={(event) => setName(event.target.value)}
        />
        <button type="submit" disabled={create.isPending}>
          Create project
        </button>
      </form>
      <ErrorNotice error={create.error} title="Could not create the project." />
      <QueryView
        query={projects}
        isEmpty={(page) => page.data.length === 0}
        empty="No projects yet. Create one to hold your workflows."
      >
        {(page) => (
          <>
            <NewWorkflowAssistant projects={page.data} />
            {page.data.map((project) => (
              <ProjectSection key={project.id} project={project} />
            ))}
          </>
        )}
      </QueryView>
    </>
  );
}
