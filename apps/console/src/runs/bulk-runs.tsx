import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { api, type Schemas, unwrap } from '../api/client';
import { Dialog } from '../components/dialog';
import { ErrorNotice, Field } from '../components/ui';
import { OperationProgress } from '../operations/operation-progress';
import { isNarrowed, type RunFilter } from './run-filter';

type Action = Schemas['BulkRunsDto']['action'];

/**
 * Cancel or rerun every run of the workflow the filters match (`POST /api/v1/runs/bulk`), matched once
 * when confirmed, then the operation's progress until it completes.
 */
export function BulkRuns({ workflowId, filter }: { workflowId: string; filter: RunFilter }) {
  const client = useQueryClient();
  const [asking, setAsking] = useState<Action | null>(null);
  const [reason, setReason] = useState('');
  const bulk = useMutation({
    mutationFn: (action: Action) =>
      unwrap(
        api.POST('/api/v1/runs/bulk', {
          body: {
            action,
            filter: { ...filter, workflowId },
            ...(action === 'cancel' && reason.trim() ? { reason: reason.trim() } : {}),
          },
        }),
      ),
    onSuccess: () => setAsking(null),
  });
  const ask = (action: Action) => {
    bulk.reset();
    setReason('');
    setAsking(action);
  };
  const every = isNarrowed(filter) ? 'every run matching these filters' : 'every run of this workflow';
  return (
    <>
      <div className="row" role="group" aria-label="All matching runs">
        <button type="button" className="danger" onClick={() => ask('cancel')}>
          Cancel all matching…
        </button>
        <button type="button" className="secondary" onClick={() => ask('rerun')}>
          Rerun all matching…
        </button>
      </div>
      {bulk.data ? (
        <OperationProgress
          key={bulk.data.id}
          first={bulk.data}
          onComplete={() => void client.invalidateQueries({ queryKey: ['runs', workflowId] })}
        />
      ) : null}
      {asking ? (
        <Dialog
          title={asking === 'cancel' ? 'Cancel all matching runs' : 'Rerun all matching runs'}
          onClose={() => setAsking(null)}
        >
          <form
            onSubmit={(event) => {
              event.preventDefault();
              bulk.mutate(asking);
            }}
          >
            <p>
              {asking === 'cancel'
                ? `Cancels ${every} that has not ended; one that has ended counts as failed.`
                : `Reruns ${every} that has ended, each from its first failed step; one still going counts as failed.`}{' '}
              The runs are matched once, now: runs started later are left alone.
            </p>
            {asking === 'cancel' ? (
              <Field label="Reason" hint="Optional: kept in each run's error.">
                {(id) => (
                  <textarea
                    id={id}
                    maxLength={1000}
                    value={reason}
                    onChange={(event) => setReason(event.target.value)}
                  />
                )}
              </Field>
            ) : null}
            <ErrorNotice error={bulk.error} title="Could not start it." />
            <div className="row" style={{ marginTop: '1rem' }}>
              <button type="submit" className={asking === 'cancel' ? 'danger' : ''} disabled={bulk.isPending}>
                {asking === 'cancel' ? 'Cancel them' : 'Rerun them'}
              </button>
              <button type="button" className="secondary" onClick={() => setAsking(null)}>
                Close
              </button>
            </div>
          </form>
        </Dialog>
      ) : null}
    </>
  );
}
