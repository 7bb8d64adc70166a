/** What an operation does to each run (or event) it matched. */
export const OPERATION_ACTIONS = ['cancel', 'rerun', 'replay'] as const;
export type OperationAction = (typeof OPERATION_ACTIONS)[number];

/** The actions of `POST /api/v1/runs/bulk`; `replay` has a route of its own. */
export const BULK_RUN_ACTIONS = ['cancel', 'rerun'] as const satisfies readonly OperationAction[];
export type BulkRunAction = (typeof BULK_RUN_ACTIONS)[number];

/** `running` until every matched run (or event) is `done` or `failed`, then `complete`. */
export const OPERATION_STATUSES = ['running', 'complete'] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];

/** An operation lists this many of its failures, the earliest first; `failed` counts them all. */
export const OPERATION_FAILURES_LISTED = 100;

/**
 * How long the gateway waits for an operation to be accepted: matching records every id it acts on,
 * which for the largest (`OPERATIONS_MAX_TARGETS`) takes seconds, not the milliseconds of a read.
 */
export const OPERATION_ACCEPT_TIMEOUT_MS = 60_000;
