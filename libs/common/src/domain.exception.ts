import { ERROR_STATUS, type ErrorCode } from './error-code.js';

export type ErrorDetails = Record<string, unknown>;

export interface ValidationIssue {
  path: string;
  message: string;
}

/** The one error type services throw; each transport maps `code` to its own status. */
export class DomainException extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetails,
  ) {
    super(message);
    this.name = 'DomainException';
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  static invalidRequest(issues: ValidationIssue[], message = 'The request is not valid.'): DomainException {
    return new DomainException('invalid_request', message, { issues });
  }

  static notFound(resource: string, id?: string): DomainException {
    const code = `${resource}_not_found`;
    const label = resource.replace(/_/g, ' ');
    return new DomainException(
      code as ErrorCode,
      id === undefined ? `The ${label} was not found.` : `No ${label} with id ${id}.`,
    );
  }

  /**
   * Work stopped because its run was cancelled (docs/runs.md, "Run control"); `message` names who
   * cancelled and why. The runner has recorded the step already and drops this answer.
   */
  static runCancelled(message: string): DomainException {
    return new DomainException('run_not_active', message);
  }

  static planLimit(resource: string, limit: number): DomainException {
    return new DomainException(
      'plan_limit_reached',
      `Your plan allows ${limit} ${resource}. Upgrade the plan to add more.`,
      { resource, limit },
    );
  }
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetails };
}

export function toErrorBody(error: DomainException): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details === undefined ? {} : { details: error.details }),
    },
  };
}
