import { useMutation } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useMemo } from 'react';

import { api, type Schemas, unwrap } from '../api/client';
import { ErrorNotice, formatTime, PageHeader, StatusBadge } from '../components/ui';
import { ReadOnlyDiagram } from '../editor/read-only-diagram';
import type { Liveness } from './live-run';
import { RunSteps } from './run-steps';
import { Timeline } from './timeline';

type Run = Schemas['WorkflowRunDto'];

/** A run as it ran: its diagram with each step's status, timeline, steps, reply and input. */
export function RunView({ run, live }: { run: Run; live: Liveness }) {
  const navigate = useNavigate();
  const statuses = useMemo(
    () => Object.fromEntries(run.steps.map((step) => [step.nodeId, step.status])),
    [run.steps],
  );
  const again = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/workflows/{id}/runs', {
          params: { path: { id: run.workflowId } },
          body: {
            input: run.input,
            draft: run.version === null,
            ...(run.triggerNodeId ? { triggerNodeId: run.triggerNodeId } : {}),
          },
        }),
      ),
    onSuccess: (next) => void navigate({ to: '/runs/$runId', params: { runId: next.id } }),
  });
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
        <button type="button" className="secondary" onClick={() => again.mutate()} disabled={again.isPending}>
          Run again with the same input
        </button>
      </PageHeader>
      <ErrorNotice error={again.error} title="Could not start the run again." />
      <p className="muted">
        <Link to="/workflows/$workflowId" params={{ workflowId: run.workflowId }} search={{ tab: 'runs' }}>
          Workflow runs
        </Link>{' '}
        · {run.version === null ? 'draft' : `version ${run.version}`} · started by {run.trigger} from{' '}
        {run.triggerNodeId ?? 'its trigger'} · {formatTime(run.createdAt)}
      </p>
      {run.error ? (
        <div className="notice error" role="alert">
          <strong>The run failed.</strong> {run.error}
        </div>
      ) : null}
      {run.reply ? (
        <section aria-labelledby="reply-title">
          <h2 id="reply-title">Reply</h2>
          <pre>{run.reply}</pre>
        </section>
      ) : null}
      <section aria-labelledby="diagram-title">
        <h2 id="diagram-title">As it ran</h2>
        <ReadOnlyDiagram diagram={run.diagram} statuses={statuses} />
      </section>
      <section aria-labelledby="timeline-title">
        <h2 id="timeline-title">Timeline</h2>
        <Timeline run={run} />
      </section>
      <RunSteps steps={run.steps} />
      {run.input ? (
        <section aria-labelledby="input-title">
          <h2 id="input-title">Input</h2>
          <pre>{run.input}</pre>
        </section>
      ) : null}
    </>
  );
}
