import '../agents/chat.css';
import './assistant.css';

import { useMutation } from '@tanstack/react-query';
import { getToolName } from 'ai';
import { type ReactNode, useId, useMemo, useState } from 'react';

import { ErrorNotice, Loading } from '../components/ui';
import type { Diagram } from '../editor/diagram';
import type { AssistantChat } from './assistant-chat';
import {
  type AssistantMessage,
  formatTokens,
  isToolPart,
  offeredProposal,
  type Proposal,
  proposalsOf,
  toolLine,
  totalUsage,
} from './assistant-messages.util';
import { IssueList, ProposalView, ValidityBadge } from './proposal-view';

/**
 * The workflow assistant: the member describes what they want, the answer streams (what it reads
 * shown as a line each, its proposals as cards), and the offered proposal is drawn beside the current
 * draft with what it changes. Applying it is the owner's (`onApply`): a draft saved, a workflow
 * created. Each turn's tokens and the conversation's are shown.
 */
export function AssistantPanel({
  assistant,
  current,
  applyLabel,
  onApply,
  applied,
  placeholder,
  notice,
  onClose,
  children,
}: {
  assistant: AssistantChat;
  /** What applying replaces: the current draft, or null for a new workflow. */
  current: Diagram | null;
  applyLabel: string;
  onApply: (diagram: Diagram, proposal: Proposal) => Promise<unknown>;
  /** Said once the shown proposal was applied. */
  applied?: ReactNode;
  placeholder: string;
  notice?: ReactNode;
  onClose?: () => void;
  children?: ReactNode;
}) {
  const { chat, ask, busy } = assistant;
  const titleId = useId();
  const inputId = useId();
  const [text, setText] = useState('');
  const [chosenId, setChosenId] = useState<string | null>(null);
  const proposals = useMemo(() => proposalsOf(chat.messages), [chat.messages]);
  const shown = proposals.find((proposal) => proposal.id === chosenId) ?? offeredProposal(proposals);
  const total = totalUsage(chat.messages);
  const apply = useMutation({
    mutationFn: ({ diagram, proposal }: { diagram: Diagram; proposal: Proposal }) =>
      onApply(diagram, proposal),
  });
  const appliedShown = apply.isSuccess && apply.variables.proposal.id === shown?.id;

  return (
    <section className="card assistant" aria-labelledby={titleId}>
      <div className="row assistant-head">
        <h2 id={titleId}>Assistant</h2>
        <span className="muted" data-testid="assistant-total-tokens">
          This conversation: {formatTokens(total)}
        </span>
        {onClose ? (
          <button type="button" className="secondary" onClick={onClose}>
            Close the assistant
          </button>
        ) : null}
      </div>
      {children}
      {notice}
      <div className="chat" role="log" aria-label="Conversation with the assistant" tabIndex={0}>
        {chat.messages.length === 0 ? <p className="muted">{placeholder}</p> : null}
        {chat.messages.map((message) => (
          <Message
            key={message.id}
            message={message}
            proposals={proposals}
            shownId={shown?.id}
            onShow={setChosenId}
          />
        ))}
        {chat.status === 'submitted' ? <Loading label="Thinking…" /> : null}
      </div>
      <ErrorNotice error={chat.error} title="The assistant could not answer." />
      <form
        className="assistant-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (text.trim() === '' || busy) return;
          setChosenId(null);
          void ask(text);
          setText('');
        }}
      >
        <label htmlFor={inputId}>Describe what you want</label>
        <textarea id={inputId} value={text} rows={3} onChange={(event) => setText(event.target.value)} />
        <div className="row">
          <button type="submit" disabled={busy}>
            Send
          </button>
          {busy ? (
            <button type="button" className="secondary" onClick={() => void chat.stop()}>
              Stop
            </button>
          ) : null}
        </div>
      </form>
      {shown ? (
        <ProposalView
          key={shown.id}
          proposal={shown}
          current={current}
          action={(diagram) => (
            <div className="assistant-apply">
              <div className="row">
                <button
                  type="button"
                  onClick={() => apply.mutate({ diagram, proposal: shown })}
                  disabled={apply.isPending || appliedShown}
                >
                  {apply.isPending ? 'Applying…' : applyLabel}
                </button>
                <span className="muted">Publishing stays a separate step.</span>
              </div>
              {appliedShown && applied ? (
                <div className="notice success" role="status">
                  {applied}
                </div>
              ) : null}
              {apply.variables?.proposal.id === shown.id ? (
                <ErrorNotice error={apply.error} title="Could not apply the proposal." />
              ) : null}
            </div>
          )}
        />
      ) : null}
    </section>
  );
}

/** One message: the member's words, or an answer's text, reads, proposals and tokens. */
function Message({
  message,
  proposals,
  shownId,
  onShow,
}: {
  message: AssistantMessage;
  proposals: Proposal[];
  shownId: string | undefined;
  onShow: (id: string) => void;
}) {
  const usage = message.metadata?.usage;
  return (
    <div className={`message ${message.role}`} data-testid={`message-${message.role}`}>
      <span className="visually-hidden">{message.role === 'user' ? 'You: ' : 'Assistant: '}</span>
      {message.parts.map((part, index) => {
        if (part.type === 'text') return <p key={index}>{part.text}</p>;
        if (!isToolPart(part)) return null;
        if (getToolName(part) !== 'propose_workflow') {
          return (
            <p key={part.toolCallId} className="tool-line">
              {toolLine(part)}
            </p>
          );
        }
        const proposal = proposals.find((candidate) => candidate.id === part.toolCallId);
        return proposal ? (
          <ProposalCard
            key={part.toolCallId}
            proposal={proposal}
            shown={proposal.id === shownId}
            onShow={() => onShow(proposal.id)}
          />
        ) : null;
      })}
      {usage ? <p className="tokens">This turn: {formatTokens(usage)}</p> : null}
    </div>
  );
}

function ProposalCard({
  proposal,
  shown,
  onShow,
}: {
  proposal: Proposal;
  shown: boolean;
  onShow: () => void;
}) {
  return (
    <div className="proposal-card">
      <div className="row">
        <strong>
          Proposal {proposal.number}: {proposal.name}
        </strong>
        <ValidityBadge proposal={proposal} />
        {proposal.status === 'checking' ? null : (
          <button type="button" className="secondary" aria-pressed={shown} onClick={onShow}>
            Show proposal {proposal.number}
          </button>
        )}
      </div>
      {proposal.status === 'invalid' ? <IssueList proposal={proposal} /> : null}
      {proposal.status === 'refused' ? <p>{proposal.error}</p> : null}
    </div>
  );
}
