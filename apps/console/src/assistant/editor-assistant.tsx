import { api, type Schemas, unwrap } from '../api/client';
import type { Diagram } from '../editor/diagram';
import type { AssistantChat } from './assistant-chat';
import { AssistantPanel } from './assistant-panel';

/**
 * The assistant in the workflow editor: it edits this workflow's draft. Applying a proposal saves it
 * as the draft (the editor's usual `PATCH`) and the editor then shows it; publishing stays the
 * editor's Publish.
 */
export function EditorAssistant({
  assistant,
  workflowId,
  current,
  dirty,
  onApplied,
  onClose,
}: {
  assistant: AssistantChat;
  workflowId: string;
  /** The diagram on the editor's canvas, unsaved changes included: what applying replaces. */
  current: Diagram;
  dirty: boolean;
  onApplied: (saved: Schemas['WorkflowDto']) => void;
  onClose: () => void;
}) {
  return (
    <AssistantPanel
      assistant={assistant}
      current={current}
      applyLabel="Apply as draft"
      applied="Applied: the proposal is now the draft. Publish it when it is ready."
      placeholder="Describe the change you want to this workflow; the assistant proposes a new draft for you to apply."
      onClose={onClose}
      notice={
        dirty ? (
          <div className="notice warn" role="status">
            This draft has unsaved changes. The assistant reads the saved draft, and applying a proposal
            replaces the draft, these changes with it.
          </div>
        ) : null
      }
      onApply={async (diagram) => {
        const saved = await unwrap(
          api.PATCH('/api/v1/workflows/{id}', { params: { path: { id: workflowId } }, body: { diagram } }),
        );
        onApplied(saved);
      }}
    />
  );
}
