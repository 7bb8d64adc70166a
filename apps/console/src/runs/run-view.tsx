import { Link } from '@tanstack/react-router';
import { useMemo } from 'react';

import type { Schemas } from '../api/client';
import { ExplainFailure } from '../assistant/explain-failure';
import { formatTime, PageHeader, StatusBadge } from '../components/ui';
import { ReadOnlyDiagram } from '../editor/read-only-diagram';
import { childRunsOf, stepAnchor } from './child-runs.util';
import { heldLine } from './held.util';
import type { Liveness } from './live-run';
import { controlState, nodeStatuses } from './run-control.util';
import { RunControls } from './run-controls';
import { RunSteps } from './run-steps';
import { Timeline } from './timeline';
import { TraceLink } from './trace-link';

type Run = Schemas['WorkflowRunDto'];

const FINAL_STATUSES: readonly string[] = ['complete', 'errored', 'terminated', 'unknown'];

/**
 * A run as it ran: its controls, its diagram with each step's status, timeline, steps, reply and input;
 * a failed run offers the assistant's explanation.
 */
export function RunView({ run, live }: { run: Run; live: Liveness }) {
  const statuses = useMemo(() => nodeStatuses(run.steps), [run.steps]);
  const childRuns = useMemo(() => childRunsOf(run), [run]);
  const loops = useMemo(
    () => ({
      runId: run.id,
      // An iteration starts at its loop node: that step is its item, not the loop's summary.
      nodeIds: new Set(
        run.diagram.nodes
          .filter((node) => node.data.type === 'loop' && node.id !== run.triggerNodeId)
          .map((node) => node.id),
      ),
      going: !FINAL_STATUSES.includes(run.status),
    }),
    [run.id, run.diagram, run.triggerNodeId, run.status],
  );
  const state = controlState(run.status);
  const held = heldLine(run);
  return (
    <>
      <PageHeader title={`Run ${run.id.slice(-8)}`}>
        <StatusBadge status={run.status} />
        <span className="muted" aria-live="polite">
          {live === 'live'
            ? 'Live'
            : live === 'connecting'
              ? 'Connecting…'
              : live === 'lost'
                ? 'Live updates lost'
                : ''}
        </span>
      </PageHeader>
      <RunControls run={run} />
      <p className="muted">
        <Link to="/workflows/$workflowId" params={{ workflowId: run.workflowId }} search={{ tab: 'runs' }}>
          Workflow runs
        </Link>{' '}
        · {run.version === null ? 'draft' : `version ${run.version}`} · started by {run.trigger} from{' '}
        {run.triggerNodeId ?? 'its trigger'} · {formatTime(run.createdAt)}
        {run.rerunOf ? (
          <>
            {' '}
            · rerun of{' '}
            <Link to="/runs/$runId" params={{ runId: run.rerunOf }}>
              run {run.rerunOf.slice(-8)}
            </Link>
          </>
        ) : null}
        {run.errorOfRunId ? (
          <>
            {' '}
            · error workflow of{' '}
            <Link to="/runs/$runId" params={{ runId: run.errorOfRunId }}>
              failed run {run.errorOfRunId.slice(-8)}
            </Link>
          </>
        ) : null}
        {run.parentRunId ? (
          <>
            {' '}
            · started by step{' '}
            <Link
              to="/runs/$runId"
              params={{ runId: run.parentRunId }}
              hash={run.parentNodeId ? stepAnchor(run.parentNodeId) : undefined}
            >
              {run.parentNodeId ?? 'a step'} of run {run.parentRunId.slice(-8)}
            </Link>
            {run.iteration === undefined ? null : <> (iteration {run.iteration})</>}
          </>
        ) : null}
        <TraceLink traceId={run.traceId} />
      </p>
      {state ? (
        <div className="notice warn" role="status">
          {state}
        </div>
      ) : null}
      {held ? (
        <div className="notice warn" role="status" data-testid="run-held">
          {held}
        </div>
      ) : null}
      {run.error ? (
        <div className="notice error" role="alert">
          <strong>{run.status === 'terminated' ? 'The run was stopped.' : 'The run failed.'}</strong>{' '}
          {run.error}
        </div>
      ) : null}
      {run.status === 'errored' ? <ExplainFailure key={run.id} run={run} /> : null}
      {run.errorWorkflow ? <ErrorWorkflowNotice outcome={run.errorWorkflow} /> : null}
      {run.reply ? (
        <section aria-labelledby="reply-title">
          <h2 id="reply-title">Reply</h2>
          <pre>{run.reply}</pre>
        </section>
      ) : null}
      <section aria-labelledby="diagram-title">
        <h2 id="diagram-title">As it ran</h2>
        {run.diagramTrimmed ? (
          <p className="muted" data-testid="diagram-trimmed">
            Node settings trimmed by retention: the nodes and edges are as they ran.
          </p>
        ) : null}
        <ReadOnlyDiagram diagram={run.diagram} statuses={statuses} />
      </section>
      <section aria-labelledby="timeline-title">
        <h2 id="timeline-title">Timeline</h2>
        <Timeline run={run} />
      </section>
      <RunSteps steps={run.steps} childRuns={childRuns} loops={loops} />
      {run.input ? (
        <section aria-labelledby="input-title">
          <h2 id="input-title">Input</h2>
          <pre>{run.input}</pre>
        </section>
      ) : null}
    </>
  );
}

/** What the failed run's error workflow came to: a link to the run it started, or why none started. */
function ErrorWorkflowNotice({ outcome }: { outcome: Schemas['ErrorWorkflowOutcomeDto'] }) {
  if (outcome.runId) {
    return (
      <p className="muted">
        Its error workflow started{' '}
        <Link to="/runs/$runId" params={{ runId: outcome.runId }}>
          run {outcome.runId.slice(-8)}
        </Link>
        .
      </p>
    );
  }
  return (
    <div className="notice warn" role="status">
      Its error workflow (
      <Link to="/workflows/$workflowId" params={{ workflowId: outcome.workflowId }}>
        {outcome.workflowId.slice(-8)}
      </Link>
      ) did not start: {outcome.error?.message ?? 'no reason was recorded.'}
    </div>
  );
}
