/**
 * Every stable error code of the contract, with the HTTP status it answers.
 * Adding a code here forces every transport's exhaustive switch to handle it.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_workflow: 400,
  trigger_required: 400,
  subscription_failed: 400,
  query_failed: 400,
  result_too_large: 400,
  unauthorized: 401,
  plan_limit_reached: 402,
  no_active_organization: 403,
  forbidden: 403,
  not_found: 404,
  project_not_found: 404,
  skill_not_found: 404,
  database_not_found: 404,
  agent_not_found: 404,
  workflow_not_found: 404,
  run_not_found: 404,
  approval_not_found: 404,
  event_not_found: 404,
  /** Extension: no bulk operation with that id in the organization. */
  operation_not_found: 404,
  /** Extension: no notification endpoint with that id in the organization. */
  notification_endpoint_not_found: 404,
  method_not_allowed: 405,
  not_published: 409,
  /** Internal: an app event or schedule reached a paused workflow (becomes the `no_listener` outcome). */
  workflow_paused: 409,
  skill_name_taken: 409,
  database_name_taken: 409,
  agent_name_taken: 409,
  approval_not_pending: 409,
  /** Extension: a cancel or pause of a run that is final (or rolling back). */
  run_not_active: 409,
  /** Extension: a resume of a run that is not `paused`. */
  run_not_paused: 409,
  /** Extension: a rerun of a run that has not ended yet. */
  run_not_final: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_STATUS, value);
}
