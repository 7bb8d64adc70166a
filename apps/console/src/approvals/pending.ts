import { api, unwrap } from '../api/client';

interface PendingCall {
  id: string;
  tool: string;
  input: unknown;
  status: string;
}

export interface Pending extends PendingCall {
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
export async function loadPending(): Promise<Pending[]> {
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
