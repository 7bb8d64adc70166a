import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';

import { api, unwrap } from '../api/client';
import { ErrorNotice, Field, formatTime, PageHeader, QueryView } from '../components/ui';

interface PendingCall {
  id: string;
  tool: string;
  input: unknown;
  status: string;
}

interface Pending extends PendingCall {
  runId: string;
  workflowId: string;
  workflowName: string;
  nodeId: string;
  expiresAt: string | null;
}

/** The calls an Agent step's `output.approvals` lists while it waits (JSON text). */
function pendingCalls(text: string | undefined): PendingCall[] {
  if (!text) return [];
  try {
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed) ? (parsed as PendingCall[]).filter((call) => call.status === 'pending') : [];
  } catch {
    return [];
  }
}

/**
 * Every agent action waiting for a decision: the dashboard names the runs, and each waiting Agent
 * step's output lists its pending calls with their ids, tools and inputs.
 */
async function loadPending(): Promise<Pending[]> {
  const dashboard = await unwrap(api.GET('/api/v1/dashboard'));
  const runs = [...new Map(dashboard.approvals.map((approval) => [approval.runId, approval])).values()];
  const loaded = await Promise.all(
    runs.map(async (approval) => {
      const run = await unwrap(api.GET('/api/v1/runs/{id}', { params: { path: { id: approval.runId } } }));
      return run.steps
        .filter((step) => step.status === 'waiting')
        .flatMap((step) =>
          pendingCalls(step.output?.approvals).map((call) => ({
            ...call,
            runId: run.id,
            workflowId: run.workflowId,
            workflowName: approval.workflowName,
            nodeId: step.nodeId,
            expiresAt: approval.expiresAt,
          })),
        );
    }),
  );
  return loaded.flat();
}

export function ApprovalsPage() {
  const query = useQuery({ queryKey: ['approvals'], queryFn: loadPending, refetchInterval: 15_000 });
  // A decided call leaves the list; what was decided stays said here.
  const [decided, setDecided] = useState<string | null>(null);
  return (
    <>
      <PageHeader title="Approvals" />
      <p className="muted">Agent actions marked ask-first wait here. Any member may decide.</p>
      {decided ? (
        <div className="notice success" role="status">
          {decided}
        </div>
      ) : null}
      <QueryView query={query} isEmpty={(list) => list.length === 0} empty="Nothing waits for a decision.">
        {(list) => (
          <>
            {list.map((pending) => (
              <ApprovalCard key={`${pending.runId}-${pending.id}`} pending={pending} onDecided={setDecided} />
            ))}
          </>
        )}
      </QueryView>
    </>
  );
}

function ApprovalCard({ pending, onDecided }: { pending: Pending; onDecided: (said: string) => void }) {
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
