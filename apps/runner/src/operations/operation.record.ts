import type {
  OperationAction,
  OperationStatus,
  Principal,
  RunStatus,
  RunTrigger,
  EventOutcome,
} from '#contracts';

/** What an operation was accepted with, kept as it was accepted (`runner.operations.params`). */
export interface OperationParams {
  /** `cancel`, `rerun`: the filter, as `GET /api/v1/runs` takes it. */
  filter?: {
    workflowId?: string;
    status?: RunStatus[];
    trigger?: RunTrigger;
    createdAfter?: string;
    createdBefore?: string;
  };
  /** `cancel`: kept in each run's error. */
  reason?: string;
  /** `replay`: the trigger and which of its events. */
  replay?: { triggerNodeId: string; outcome?: EventOutcome; after?: string; before?: string };
}

/**
 * A target's progress: `pending`, then `acting` (committed before the action is called, so a holder
 * that dies mid-call leaves a trace), then `done` or `failed`.
 */
export type TargetState = 'pending' | 'acting' | 'done' | 'failed';

export interface OperationRecord {
  id: string;
  organizationId: string;
  action: OperationAction;
  status: OperationStatus;
  principal: Principal;
  workflowId: string | null;
  params: OperationParams;
  matched: number;
  done: number;
  failed: number;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
}

/** An operation as a worker holds it: `leaseToken` fences every write it makes. */
export interface HeldOperation extends OperationRecord {
  leaseToken: number;
}

export interface FailureRecord {
  targetId: string;
  code: string;
  message: string;
  at: Date;
}

/** A target found `acting`: its holder died, or was too slow, after it began the action. */
export interface InterruptedTarget {
  targetId: string;
  actedAt: Date;
}
