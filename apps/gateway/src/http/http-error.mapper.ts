import { DomainException, type ErrorCode } from '#common';
import { HttpException } from '@nestjs/common';

/**
 * Fastify's own errors that are the caller's doing, by Fastify's error code; `path` names where the
 * problem is when the code is invalid_request.
 */
const FASTIFY_CODES: Record<string, { code: ErrorCode; message: string; path?: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: {
    code: 'invalid_request',
    message: 'The body is not valid JSON.',
    path: 'body',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'invalid_request', message: 'The body is empty.', path: 'body' },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    code: 'payload_too_large',
    message: 'The body is larger than this server accepts.',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'unsupported_media_type',
    message: 'Send the body as JSON with "Content-Type: application/json".',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'invalid_request',
    message: 'Content-Length does not match the body.',
    path: 'body',
  },
  FST_ERR_BAD_URL: {
    code: 'invalid_request',
    message: 'The path is not a valid URL: check its percent-encoding.',
    path: 'path',
  },
  FST_ERR_MAX_PARAM_LENGTH: {
    code: 'invalid_request',
    message: 'A path parameter is longer than this server accepts.',
    path: 'path',
  },
};

function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
      return 'invalid_request';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 405:
      return 'method_not_allowed';
    case 413:
      return 'payload_too_large';
    case 415:
      return 'unsupported_media_type';
    case 429:
      return 'rate_limited';
    case 503:
      return 'service_unavailable';
    default:
      return 'internal';
  }
}

/** The contract promises `details.issues` on every invalid_request, whoever raised it. */
function domainError(code: ErrorCode, message: string, path = ''): DomainException {
  return code === 'invalid_request'
    ? DomainException.invalidRequest([{ path, message }], message)
    : new DomainException(code, message);
}

function fastifyCodeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && Object.hasOwn(FASTIFY_CODES, code) ? code : undefined;
}

/**
 * Turns anything thrown while answering a request into a DomainException, or null when it is a
 * fault of ours that must be logged and answered opaquely.
 */
export function toDomainException(error: unknown): DomainException | null {
  if (error instanceof DomainException) return error;
  // Nest hands Fastify's errors to the filters wrapped in an HttpException, the original as its cause.
  const fastifyCode =
    fastifyCodeOf(error) ?? (error instanceof HttpException ? fastifyCodeOf(error.cause) : undefined);
  if (fastifyCode) {
    const known = FASTIFY_CODES[fastifyCode];
    return domainError(known.code, known.message, known.path);
  }
  if (error instanceof HttpException && error.getStatus() < 500) {
    return domainError(codeForStatus(error.getStatus()), error.message);
  }
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return domainError(codeForStatus(status), (error as Error).message);
  }
  return null;
}
