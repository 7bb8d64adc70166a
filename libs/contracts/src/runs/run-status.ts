export const RUN_STATUSES = [
  'queued',
  'running',
  'paused',
  'errored',
  'terminated',
  'complete',
  'waiting',
  'waitingForPause',
  'rollingBack',
  'unknown',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** A client polls until one of these. */
export const FINAL_RUN_STATUSES: readonly RunStatus[] = ['complete', 'errored', 'terminated'];

export const STEP_STATUSES = ['running', 'waiting', 'done', 'error', 'skipped'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

/** A run's live status is kept this long; afterwards it reads `unknown` and its steps remain. */
export const RUN_STATUS_RETENTION_DAYS = 30;

/** An `Idempotency-Key` answers the run it first created for this long. */
export const IDEMPOTENCY_KEY_TTL_HOURS = 24;

export const RUN_INPUT_MAX_LENGTH = 100_000;
