import { type ApiClient, expectData } from './api-client.js';
import type { RunStatus, RunStep, Schemas, WithoutDefaults, WorkflowRun } from './api-schema.js';
import { waitFor } from './wait.util.js';

/** The statuses a run never leaves. */
export const FINAL_RUN_STATUSES: readonly RunStatus[] = ['complete', 'errored', 'terminated'];

export type StartRunBody = WithoutDefaults<Schemas['StartRunDto']>;

/** The headers a start takes: an idempotency key, and `Prefer: wait=N`. */
export interface StartRunHeaders {
  'Idempotency-Key'?: string;
  Prefer?: string;
}

/** Starts a run of a workflow; answers the answer as it came, for the test to check. */
export function startRun(api: ApiClient, workflowId: string, body?: StartRunBody, header?: StartRunHeaders) {
  return api.POST('/api/v1/workflows/{id}/runs', {
    params: { path: { id: workflowId }, ...(header === undefined ? {} : { header }) },
    ...(body === undefined ? {} : { body }),
  });
}

export interface RunWait {
  timeoutMs?: number;
  intervalMs?: number;
  what?: string;
}

/** Reads a run until its status is one of `statuses`, and answers it then. */
export function runReaches(
  api: ApiClient,
  runId: string,
  statuses: readonly RunStatus[],
  {
    timeoutMs = 15_000,
    intervalMs = 100,
    what = `run ${runId} to be ${statuses.join(' or ')}`,
  }: RunWait = {},
): Promise<WorkflowRun> {
  return waitFor(
    async () => {
      const { data } = await api.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } });
      return data !== undefined && statuses.includes(data.status) ? data : undefined;
    },
    { timeoutMs, intervalMs, what },
  );
}

/** Reads a run until it is complete, errored or terminated, and answers it then. */
export function finished(api: ApiClient, runId: string, wait: RunWait = {}): Promise<WorkflowRun> {
  return runReaches(api, runId, FINAL_RUN_STATUSES, { what: `run ${runId} to finish`, ...wait });
}

/** Starts a run, checks it was accepted, and answers it once it is finished. */
export async function runToEnd(
  api: ApiClient,
  workflowId: string,
  body?: StartRunBody,
  wait?: RunWait,
): Promise<WorkflowRun> {
  const started = expectData(await startRun(api, workflowId, body), 201);
  return finished(api, started.id, wait);
}

/** The step of a run for one node; undefined when the run never reached it. */
export function stepOf(run: { steps: RunStep[] }, nodeId: string): RunStep | undefined {
  return run.steps.find((step) => step.nodeId === nodeId);
}

/** Every run of a workflow, newest first, as summaries. */
export function runsOf(api: ApiClient, workflowId: string) {
  return api.listAll('/api/v1/workflows/{id}/runs', { path: { id: workflowId } });
}
