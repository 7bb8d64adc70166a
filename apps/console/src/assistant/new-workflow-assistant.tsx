import { useNavigate } from '@tanstack/react-router';
import { useState } from 'react';

import { api, type Schemas, unwrap } from '../api/client';
import { Field } from '../components/ui';
import { useAssistantChat } from './assistant-chat';
import { AssistantPanel } from './assistant-panel';

/**
 * The assistant on the workflows page: it drafts a new workflow for the project the member picks.
 * Applying creates the workflow there with the proposal's name and diagram as its draft (unpublished),
 * then opens its editor.
 */
export function NewWorkflowAssistant({ projects }: { projects: Array<Schemas['ProjectDto']> }) {
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const [picked, setPicked] = useState<string | undefined>(undefined);
  // A project deleted meanwhile, or none picked yet: the first one.
  const projectId = projects.some((project) => project.id === picked) ? picked : projects[0]?.id;
  const assistant = useAssistantChat(projectId ? { projectId } : {});
  if (!open) {
    return (
      <p>
        <button type="button" className="secondary" aria-expanded={false} onClick={() => setOpen(true)}>
          Draft a workflow with the assistant
        </button>
      </p>
    );
  }
  return (
    <AssistantPanel
      assistant={assistant}
      current={null}
      applyLabel="Create workflow"
      placeholder="Describe the workflow you want: what starts it, and what it should do."
      onClose={() => setOpen(false)}
      onApply={async (diagram, proposal) => {
        if (!projectId) throw new Error('Pick the project the workflow is for.');
        // One request: the workflow is made with the proposal as its draft, never half made.
        const created = await unwrap(
          api.POST('/api/v1/projects/{projectId}/workflows', {
            params: { path: { projectId } },
            body: { name: proposal.name.slice(0, 100), description: null, diagram },
          }),
        );
        await navigate({ to: '/workflows/$workflowId', params: { workflowId: created.id } });
      }}
    >
      <Field label="Project" hint="The project the new workflow goes in.">
        {(id) => (
          <select id={id} value={projectId} onChange={(event) => setPicked(event.target.value)}>
            {projects.map((project) => (
              <option key={project.id} value={project.id}>
                {project.name}
              </option>
            ))}
          </select>
        )}
      </Field>
    </AssistantPanel>
  );
}
