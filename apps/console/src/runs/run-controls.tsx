import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useState } from 'react';

import { api, type Schemas, unwrap } from '../api/client';
import { ErrorNotice } from '../components/ui';
import { CancelDialog } from './cancel-dialog';
import { RerunDialog } from './rerun-dialog';
import { hasCompensations, movesFor, type RerunFrom, rerunBody } from './run-control.util';

type Run = Schemas['WorkflowRunDto'];

/**
 * Pause, Resume, Cancel and Rerun, as the run's status allows. A move answers the run as it now is,
 * which the page shows at once (its stream follows from there); a refused one (the run moved on since
 * the page read it) reads the run again, so the buttons match it.
 */
export function RunControls({ run }: { run: Run }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const [open, setOpen] = useState<'cancel' | 'rerun' | null>(null);
  const key = ['run', run.id];
  const path = { params: { path: { id: run.id } } };
  const moved = (next: Run) => client.setQueryData(key, next);
  const refused = () => void client.invalidateQueries({ queryKey: key });

  const pause = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/runs/{id}/pause', path)),
    onSuccess: moved,
    onError: refused,
  });
  const resume = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/runs/{id}/resume', path)),
    onSuccess: moved,
    onError: refused,
  });
  const cancel = useMutation({
    mutationFn: (body: Schemas['CancelRunDto']) =>
      unwrap(api.POST('/api/v1/runs/{id}/cancel', { ...path, body })),
    onSuccess: (next) => {
      moved(next);
      setOpen(null);
    },
    onError: refused,
  });
  const rerun = useMutation({
    mutationFn: (from: RerunFrom) =>
      unwrap(api.POST('/api/v1/runs/{id}/rerun', { ...path, body: rerunBody(from) })),
    onSuccess: (next) => {
      setOpen(null);
      void navigate({ to: '/runs/$runId', params: { runId: next.id } });
    },
  });

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

  const clearErrors = () => [pause, resume, again].forEach((mutation) => mutation.reset());

  const moves = movesFor(run.status);
  const busy = pause.isPending || resume.isPending || cancel.isPending;
  return (
    <>
      <div className="row run-controls" role="group" aria-label="Run control">
        {moves.pause ? (
          <button
            type="button"
            className="secondary"
            disabled={busy}
            onClick={() => {
              clearErrors();
              pause.mutate();
            }}
          >
            Pause
          </button>
        ) : null}
        {moves.resume ? (
          <button
            type="button"
            disabled={busy}
            onClick={() => {
              clearErrors();
              resume.mutate();
            }}
          >
            Resume
          </button>
        ) : null}
        {moves.cancel ? (
          <button
            type="button"
            className="danger"
            disabled={busy}
            onClick={() => {
              cancel.reset();
              setOpen('cancel');
            }}
          >
            Cancel…
          </button>
        ) : null}
        {moves.rerun ? (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              rerun.reset();
              setOpen('rerun');
            }}
          >
            Rerun…
          </button>
        ) : null}
        <button type="button" className="secondary" onClick={() => again.mutate()} disabled={again.isPending}>
          Run again with the same input
        </button>
      </div>
      <ErrorNotice error={pause.error} title="Could not pause the run." />
      <ErrorNotice error={resume.error} title="Could not resume the run." />
      <ErrorNotice error={again.error} title="Could not start the run again." />
      {open === 'cancel' ? (
        <CancelDialog
          canRollBack={hasCompensations(run.diagram)}
          pending={cancel.isPending}
          error={cancel.error}
          onCancel={(body) => cancel.mutate(body)}
          onClose={() => setOpen(null)}
        />
      ) : null}
      {open === 'rerun' ? (
        <RerunDialog
          run={run}
          pending={rerun.isPending}
          error={rerun.error}
          onRerun={(from) => rerun.mutate(from)}
          onClose={() => setOpen(null)}
        />
      ) : null}
    </>
  );
}
