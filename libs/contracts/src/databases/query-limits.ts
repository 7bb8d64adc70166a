/** The contract's limits on a query batch (spec: Limits). */
export const QUERY_LIMITS = {
  maxStatements: 100,
  maxSqlLength: 100_000,
  maxParams: 100,
} as const;

/** Default cap on the serialized rows of one batch; the service may be configured lower for tests. */
export const DEFAULT_RESULT_LIMIT_BYTES = 16 * 1024 * 1024;

/** Default time a statement may run before it is interrupted. */
export const DEFAULT_QUERY_TIMEOUT_MS = 30_000;

/**
 * How long a caller of `DatabaseSubjects.query` or `queryStream` waits for the answer. The service
 * ends every batch (its statements, and any wait for another batch's writes) well before this, so a
 * caller never gives up on a batch that may still commit.
 */
export const QUERY_REPLY_TIMEOUT_MS = 180_000;

/** The longest the service may let one batch run; its configuration is checked against it. */
export const MAX_BATCH_TIMEOUT_MS = QUERY_REPLY_TIMEOUT_MS - 15_000;
