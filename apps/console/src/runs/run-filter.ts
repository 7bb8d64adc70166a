import type { Schemas } from '../api/client';

/** The filters of a workflow's runs, as `GET /api/v1/workflows/{id}/runs` and a bulk action take them. */
export type RunFilter = Omit<Schemas['OrganizationRunFilterDto'], 'workflowId'>;
export type RunStatus = NonNullable<RunFilter['status']>[number];
export type RunTrigger = NonNullable<RunFilter['trigger']>;

export const RUN_STATUSES: readonly RunStatus[] = [
  'queued',
  'running',
  'waiting',
  'waitingForPause',
  'paused',
  'rollingBack',
  'complete',
  'errored',
  'terminated',
  'unknown',
];

export const RUN_TRIGGERS: readonly RunTrigger[] = ['manual', 'api', 'schedule', 'event'];

/**
 * A `datetime-local` field's value (the member's own clock, no zone) as the instant the API takes, or
 * undefined when empty.
 */
export function instantOf(local: string): string | undefined {
  if (local === '') return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** Whether any filter narrows the list: a bulk action over no filter would act on every run. */
export function isNarrowed(filter: RunFilter): boolean {
  return (
    (filter.status?.length ?? 0) > 0 ||
    filter.trigger !== undefined ||
    filter.createdAfter !== undefined ||
    filter.createdBefore !== undefined
  );
}
