/** An error answered by the API in its shape `{error: {code, message, details?}}`, or a network failure. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The problems listed by `invalid_request` and `invalid_workflow`. */
  get issues(): Array<{ path: string; message: string; nodeId?: string; edgeId?: string }> {
    const issues = this.details.issues;
    return Array.isArray(issues) ? (issues as ApiError['issues']) : [];
  }
}

interface ErrorBody {
  error?: { code?: unknown; message?: unknown; details?: unknown };
  // better-auth answers its own errors as `{code, message}`.
  code?: unknown;
  message?: unknown;
  details?: unknown;
}

/** Turns what a failed request answered into an ApiError whose message is words, never JSON. */
export function toApiError(status: number, body: unknown): ApiError {
  const parsed = (typeof body === 'object' && body !== null ? body : {}) as ErrorBody;
  const error = parsed.error ?? parsed;
  const code = typeof error.code === 'string' ? error.code.toLowerCase() : `http_${status}`;
  const message =
    typeof error.message === 'string' && error.message !== ''
      ? error.message
      : status === 0
        ? 'The server could not be reached. Check your connection and try again.'
        : `The server answered ${status} without saying why.`;
  const details =
    typeof error.details === 'object' && error.details !== null
      ? (error.details as Record<string, unknown>)
      : {};
  return new ApiError(status, code, message, details);
}

/** The messages of a refused request's issues at `path` or inside it (`config.headers.x-key`). */
export function issuesAt(error: unknown, path: string): string[] {
  if (!(error instanceof ApiError)) return [];
  return error.issues
    .filter((issue) => issue.path === path || issue.path.startsWith(`${path}.`))
    .map((issue) => issue.message);
}

/**
 * The error without its issues at these paths, for a form that shows those on their fields; null when
 * the fields say all there is to say, so the same words are not shown twice.
 */
export function withoutIssuesAt(error: unknown, paths: string[]): unknown {
  if (!(error instanceof ApiError) || error.issues.length === 0) return error;
  const onFields = (path: string) => paths.some((field) => path === field || path.startsWith(`${field}.`));
  const rest = error.issues.filter((issue) => !onFields(issue.path));
  if (rest.length === 0) return null;
  if (rest.length === error.issues.length) return error;
  return new ApiError(error.status, error.code, error.message, { ...error.details, issues: rest });
}

/**
 * The refusals of a run's controls come when the run moved on since the page last read it (it ended,
 * another member paused it): the page reads it again, and says so.
 */
const RUN_MOVED_ON = new Set(['run_not_active', 'run_not_paused', 'run_not_final']);

/** A sentence for people, with the listed problems of a refused request. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    const issues = error.issues.map((issue) => `${issue.path}: ${issue.message}`);
    if (error.code === 'plan_limit_reached') {
      const { resource, limit } = error.details as { resource?: string; limit?: number };
      if (resource) return `${error.message} (${resource}: ${String(limit)} on your plan)`;
    }
    if (RUN_MOVED_ON.has(error.code)) {
      return `${error.message} It changed since this page read it; the page now shows it as it is.`;
    }
    return issues.length > 0 ? `${error.message} ${issues.join('; ')}.` : error.message;
  }
  if (error instanceof Error) return error.message;
  return 'Something went wrong.';
}
