import { DomainException, type ErrorCode } from '#common';
import { HttpException } from '@nestjs/common';

/** Fastify's own errors that are the caller's doing, by Fastify's error code. */
const FASTIFY_CODES: Record<string, { code: ErrorCode; message: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'invalid_request', message: 'The body is not valid JSON.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'invalid_request', message: 'The body is empty.' },
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

/**
 * Turns anything thrown while answering a request into a DomainException, or null when it is a
 * fault of ours that must be logged and answered opaquely.
 */
export function toDomainException(error: unknown): DomainException | null {
  if (error instanceof DomainException) return error;
  const fastifyCode = (error as { code?: unknown }).code;
  if (typeof fastifyCode === 'string' && FASTIFY_CODES[fastifyCode]) {
    const known = FASTIFY_CODES[fastifyCode];
    return known.code === 'invalid_request'
      ? DomainException.invalidRequest([{ path: 'body', message: known.message }], known.message)
      : new DomainException(known.code, known.message);
  }
  if (error instanceof HttpException && error.getStatus() < 500) {
    const code = codeForStatus(error.getStatus());
    return code === 'invalid_request'
      ? DomainException.invalidRequest([{ path: '', message: error.message }], error.message)
      : new DomainException(code, error.message);
  }
  const status = (error as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new DomainException(codeForStatus(status), (error as Error).message);
  }
  return null;
}
