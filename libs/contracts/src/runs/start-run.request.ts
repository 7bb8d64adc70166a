export const RUN_TRIGGERS = ['manual', 'api', 'schedule', 'event'] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

/** The message behind `RunnerSubjects.runsStart`, sent with the caller's principal. */
export interface StartRunRequest {
  workflowId: string;
  input: string;
  draft: boolean;
  triggerNodeId?: string;
  trigger: RunTrigger;
  /**
   * Makes starting idempotent within the organization for 24 hours: the `Idempotency-Key` header of
   * an API start, or `schedule:<workflowId>:<triggerNodeId>:<due ISO time>` for a scheduled one.
   */
  idempotencyKey?: string;
}

/** The runner's reply: the run, and whether it already existed for the idempotency key. */
export interface StartRunReply<TRun = unknown> {
  run: TRun;
  replayed: boolean;
}
