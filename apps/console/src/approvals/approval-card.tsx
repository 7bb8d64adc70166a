import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';

import { api, unwrap } from '../api/client';
import { ErrorNotice, Field, formatTime } from '../components/ui';
import type { Pending } from './pending';

/** One pending call: its tool and input, approved or denied with a reason. */
export function ApprovalCard({
  pending,
  onDecided,
}: {
  pending: Pending;
  onDecided: (said: string) => void;
}) {
  const client = useQueryClient();
  const [reason, setReason] = useState('');
  const decide = useMutation({
    mutationFn: (decision: 'approve' | 'deny') =>
      unwrap(
        api.POST('/api/v1/runs/{id}/approvals/{approvalId}', {
          params: { path: { id: pending.runId, approvalId: pending.id } },
          body: { decision, ...(reason.trim() ? { reason: reason.trim() } : {}) },
        }),
      ),
    onSuccess: (decision) => {
      onDecided(
        decision.status === 'approved'
          ? `Approved ${pending.tool} in ${pending.workflowName}: the action runs and the run goes on.`
          : `Denied ${pending.tool} in ${pending.workflowName}: the agent goes on with the reason.`,
      );
      void client.invalidateQueries({ queryKey: ['approvals'] });
      void client.invalidateQueries({ queryKey: ['dashboard'] });
    },
  });
  return (
    <article className="card" aria-label={`Approval of ${pending.tool}`}>
      <h2 style={{ marginTop: 0 }}>
        <code>{pending.tool}</code>
      </h2>
      <p className="muted">
        Step {pending.nodeId} of{' '}
        <Link to="/runs/$runId" params={{ runId: pending.runId }}>
          {pending.workflowName}
        </Link>
        {pending.expiresAt ? ` · denied automatically ${formatTime(pending.expiresAt)}` : ''}
      </p>
      <h3>Input</h3>
      <pre>{JSON.stringify(pending.input, null, 2)}</pre>
      {decide.isSuccess ? null : (
        <>
          <Field label="Reason (optional; the agent reads it when denied)">
            {(id) => (
              <input
                id={id}
                value={reason}
                maxLength={1000}
                onChange={(event) => setReason(event.target.value)}
              />
            )}
          </Field>
          <div className="row">
            <button type="button" onClick={() => decide.mutate('approve')} disabled={decide.isPending}>
              Approve
            </button>
            <button
              type="button"
              className="danger"
              onClick={() => decide.mutate('deny')}
              disabled={decide.isPending}
            >
              Deny
            </button>
          </div>
        </>
      )}
      <ErrorNotice error={decide.error} title="Could not record the decision." />
    </article>
  );
}
