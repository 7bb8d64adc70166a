import { type ReactNode, useMemo } from 'react';

import type { Diagram } from '../editor/diagram';
import type { Proposal } from './assistant-messages.util';
import { DiffDiagram } from './diff-diagram';
import { currentFlow, diffDiagrams, diffSummary, laidOut, proposalFlow } from './proposal-diff.util';

const EMPTY: Diagram = { nodes: [], edges: [] };

/**
 * One proposal beside the current draft: whether it would publish (an invalid one is shown with its
 * issues and cannot be applied), what it changes, both diagrams, and the button that applies it.
 * `current` is null when the proposal is for a new workflow.
 */
export function ProposalView({
  proposal,
  current,
  action,
}: {
  proposal: Proposal;
  current: Diagram | null;
  /** The apply button and its outcome, given the diagram to apply: the owner's to decide. */
  action: (diagram: Diagram) => ReactNode;
}) {
  const base = current ?? EMPTY;
  const view = useMemo(() => {
    if (!proposal.diagram) return null;
    const proposed = laidOut(proposal.diagram, base);
    const diff = diffDiagrams(base, proposed);
    const problems = new Map<string, string[]>();
    for (const issue of proposal.issues) {
      if (issue.nodeId) problems.set(issue.nodeId, [...(problems.get(issue.nodeId) ?? []), issue.message]);
    }
    return {
      proposed,
      diff,
      proposal: proposalFlow(base, proposed, diff, problems),
      current: currentFlow(base, diff),
    };
  }, [proposal.diagram, proposal.issues, base]);
  const titleId = `proposal-${proposal.id}-title`;
  const changes = view?.diff.nodes.filter((node) => node.change !== 'same') ?? [];
  return (
    <section className="proposal" aria-labelledby={titleId} data-testid="assistant-proposal">
      <div className="row">
        <h3 id={titleId}>
          Proposal {proposal.number}: {proposal.name}
        </h3>
        <ValidityBadge proposal={proposal} />
      </div>
      {proposal.explanation ? <p className="explanation">{proposal.explanation}</p> : null}
      {proposal.status === 'invalid' ? (
        <div className="notice error">
          <strong>Not valid:</strong> it would not publish, so it cannot be applied. The assistant was told
          why:
          <IssueList proposal={proposal} />
        </div>
      ) : null}
      {proposal.status === 'refused' ? (
        <div className="notice error">
          <strong>Refused:</strong> {proposal.error}
        </div>
      ) : null}
      {view ? (
        <>
          <p className="muted" data-testid="proposal-summary">
            {diffSummary(view.diff, view.proposed, current === null)}
          </p>
          {current ? (
            <>
              <ul className="diff-legend" aria-label="Legend">
                <li>
                  <span className="swatch added" aria-hidden="true" /> Added
                </li>
                <li>
                  <span className="swatch changed" aria-hidden="true" /> Changed
                </li>
                <li>
                  <span className="swatch removed" aria-hidden="true" /> Removed (ghosted)
                </li>
              </ul>
              {changes.length > 0 ? (
                <ul className="diff-changes" aria-label="Changes">
                  {changes.map((node) => (
                    <li key={node.id}>
                      <code>{node.id}</code> ({node.type}): {node.change}
                    </li>
                  ))}
                </ul>
              ) : null}
            </>
          ) : null}
          <div className="diff-canvases">
            {current ? (
              <figure>
                <figcaption>Current draft</figcaption>
                <DiffDiagram flow={view.current} label="Current draft" flowId="assistant-current" />
              </figure>
            ) : null}
            <figure>
              <figcaption>Proposal</figcaption>
              <DiffDiagram flow={view.proposal} label="Proposed diagram" flowId="assistant-proposal" />
            </figure>
          </div>
          {proposal.status === 'valid' ? action(view.proposed) : null}
        </>
      ) : proposal.status === 'checking' ? null : (
        <p className="muted">The proposal is not a diagram that can be drawn.</p>
      )}
    </section>
  );
}

export function ValidityBadge({ proposal }: { proposal: Proposal }) {
  switch (proposal.status) {
    case 'valid':
      return <span className="badge ok">Valid</span>;
    case 'invalid':
      return <span className="badge bad">Not valid</span>;
    case 'refused':
      return <span className="badge bad">Refused</span>;
    case 'checking':
      return <span className="badge info">Checking…</span>;
  }
}

export function IssueList({ proposal }: { proposal: Proposal }) {
  if (proposal.issues.length === 0) return null;
  return (
    <ul className="issues" aria-label={`Issues of proposal ${proposal.number}`}>
      {proposal.issues.map((issue, index) => (
        <li key={index}>
          {issue.path ? <code>{issue.path}</code> : null} {issue.message}
        </li>
      ))}
    </ul>
  );
}
