import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useEffect, useMemo, useState } from 'react';

import { api, type Schemas, unwrap } from '../api/client';
import {
  Empty,
  ErrorNotice,
  formatDuration,
  formatTime,
  PageHeader,
  QueryView,
  StatusBadge,
} from '../components/ui';
import { ReadOnlyDiagram } from '../editor/read-only-diagram';
import { runRoute } from '../router';

type Run = Schemas['WorkflowRunDto'];
type Step = Schemas['RunStepDto'];

const FINAL = new Set(['complete', 'errored', 'terminated', 'unknown']);

/**
 * Follows a run live from its event stream (`GET /api/v1/runs/{id}/stream`): the first `run` event is
 * the whole state, then `step` and `status` changes, then `end`.
 */
function useLiveRun(runId: string) {
  const client = useQueryClient();
  const [live, setLive] = useState<'connecting' | 'live' | 'ended' | 'lost'>('connecting');
  useEffect(() => {
    const key = ['run', runId];
    const source = new EventSource(`/api/v1/runs/${encodeURIComponent(runId)}/stream`);
    const update = (change: (run: Run) => Run) =>
      client.setQueryData<Run>(key, (run) => (run ? change(run) : run));
    source.addEventListener('run', (event) => {
      client.setQueryData(key, JSON.parse((event as MessageEvent<string>).data) as Run);
      setLive('live');
    });
    source.addEventListener('step', (event) => {
      const step = JSON.parse((event as MessageEvent<string>).data) as Step;
      update((run) => {
        const at = run.steps.findIndex((known) => known.nodeId === step.nodeId);
        const steps =
          at === -1 ? [...run.steps, step] : run.steps.map((known, i) => (i === at ? step : known));
        return { ...run, steps };
      });
    });
    source.addEventListener('status', (event) => {
      const status = JSON.parse((event as MessageEvent<string>).data) as Pick<
        Run,
        'status' | 'reply' | 'error'
      >;
      update((run) => ({ ...run, status: status.status, reply: status.reply, error: status.error }));
    });
    source.addEventListener('end', () => {
      source.close();
      setLive('ended');
      void client.invalidateQueries({ queryKey: key });
    });
    source.onerror = () => {
      // EventSource reconnects by itself; a refused stream (404) closes for good.
      if (source.readyState === EventSource.CLOSED) setLive('lost');
    };
    return () => source.close();
  }, [client, runId]);
  return live;
}

export function RunPage() {
  const { runId } = runRoute.useParams();
  const query = useQuery({
    queryKey: ['run', runId],
    queryFn: () => unwrap(api.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } })),
  });
  const live = useLiveRun(runId);
  return (
    <QueryView query={query}>
      {(run) => <RunView run={run} live={FINAL.has(run.status) ? 'ended' : live} />}
    </QueryView>
  );
}

function RunView({ run, live }: { run: Run; live: string }) {
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
      <section aria-labelledby="steps-title">
        <h2 id="steps-title">Steps</h2>
        {run.steps.length === 0 ? <Empty>No step has started yet.</Empty> : null}
        {run.steps.map((step) => (
          <details
            key={step.nodeId}
            className="card"
            open={step.status === 'error' || step.status === 'waiting'}
          >
            <summary>
              <strong>{step.nodeId}</strong> <StatusBadge status={step.status} />{' '}
              <span className="muted">{formatDuration(step.ms)}</span>
            </summary>
            {step.error ? (
              <div className="notice error">
                <strong>Error:</strong> {step.error}
              </div>
            ) : null}
            <h3>Input</h3>
            {step.input ? <pre>{step.input}</pre> : <p className="muted">None.</p>}
            <h3>Output</h3>
            {step.output && Object.keys(step.output).length > 0 ? (
              <dl>
                {Object.entries(step.output).map(([field, value]) => (
                  <div key={field}>
                    <dt>
                      <code>{field}</code>
                    </dt>
                    <dd>
                      <pre>{value}</pre>
                    </dd>
                  </div>
                ))}
              </dl>
            ) : (
              <p className="muted">None.</p>
            )}
          </details>
        ))}
      </section>
      {run.input ? (
        <section aria-labelledby="input-title">
          <h2 id="input-title">Input</h2>
          <pre>{run.input}</pre>
        </section>
      ) : null}
    </>
  );
}

/** Each step as a bar from its start, as long as it took, on the run's own clock. */
function Timeline({ run }: { run: Run }) {
  if (run.steps.length === 0) return <Empty>Nothing to show yet.</Empty>;
  const begin = Math.min(...run.steps.map((step) => Date.parse(step.startedAt)));
  const now = Date.now();
  const ends = run.steps.map(
    (step) => Date.parse(step.startedAt) + (step.ms ?? Math.max(0, now - Date.parse(step.startedAt))),
  );
  const total = Math.max(1, Math.max(...ends) - begin);
  return (
    <ol className="timeline card">
      {run.steps.map((step) => {
        const start = Date.parse(step.startedAt) - begin;
        const length = step.ms ?? Math.max(0, now - Date.parse(step.startedAt));
        return (
          <li key={step.nodeId}>
            <span>
              {step.nodeId} <StatusBadge status={step.status} />
            </span>
            <span className="track" aria-hidden="true">
              <span
                className="span"
                style={{
                  left: `${(start / total) * 100}%`,
                  width: `${Math.max(0.5, (length / total) * 100)}%`,
                }}
              />
            </span>
            <span>{formatDuration(step.ms)}</span>
          </li>
        );
      })}
    </ol>
  );
}
