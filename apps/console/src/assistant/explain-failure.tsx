import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';

import { api, type Schemas, unwrap } from '../api/client';
import { ErrorNotice } from '../components/ui';
import { EXPLAIN_FAILURE, useAssistantChat } from './assistant-chat';
import { AssistantPanel } from './assistant-panel';

/**
 * "Explain this failure" on a failed run: the assistant reads the run and answers with the step, the
 * cause and a change that would fix it; a fix it proposes is compared with the workflow's current
 * draft and can be applied as that draft.
 */
export function ExplainFailure({ run }: { run: Schemas['WorkflowRunDto'] }) {
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const assistant = useAssistantChat({ workflowId: run.workflowId, runId: run.id });
  const workflow = useQuery({
    queryKey: ['workflow', run.workflowId],
    queryFn: () => unwrap(api.GET('/api/v1/workflows/{id}', { params: { path: { id: run.workflowId } } })),
    enabled: open,
  });
  if (!open) {
    const asked = assistant.chat.messages.length > 0;
    return (
      <p>
        <button
          type="button"
          aria-expanded={false}
          onClick={() => {
            setOpen(true);
            if (!asked) void assistant.ask(EXPLAIN_FAILURE);
          }}
        >
          {asked ? 'Show the assistant' : 'Explain this failure'}
        </button>
      </p>
    );
  }
  return (
    <AssistantPanel
      assistant={assistant}
      current={workflow.data?.diagram ?? null}
      applyLabel="Apply as draft"
      applied={
        <>
          Applied: the proposal is now the draft of {workflow.data?.name ?? 'the workflow'}.{' '}
          <Link to="/workflows/$workflowId" params={{ workflowId: run.workflowId }}>
            Open the editor
          </Link>{' '}
          to publish it.
        </>
      }
      placeholder="Ask about this run."
      onClose={() => setOpen(false)}
      onApply={async (diagram) => {
        // The member compares the proposal with the draft before applying it over that draft.
        if (!workflow.data) throw new Error("The workflow's draft is not read yet; try again in a moment.");
        const saved = await unwrap(
          api.PATCH('/api/v1/workflows/{id}', {
            params: { path: { id: run.workflowId } },
            body: { diagram },
          }),
        );
        client.setQueryData(['workflow', run.workflowId], (old: Schemas['WorkflowDetailDto'] | undefined) =>
          old ? { ...old, ...saved } : old,
        );
      }}
    >
      <ErrorNotice error={workflow.error} title="Could not read the workflow's draft." />
    </AssistantPanel>
  );
}
