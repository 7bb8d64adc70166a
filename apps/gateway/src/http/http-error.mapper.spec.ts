import { DomainException } from '#common';
import {
  BadRequestException,
  ForbiddenException,
  NotFoundException,
  PayloadTooLargeException,
} from '@nestjs/common';

import { toDomainException } from './http-error.mapper.js';

describe('toDomainException', () => {
  it('keeps a domain exception as it is', () => {
    const original = DomainException.notFound('project', 'x');
    expect(toDomainException(original)).toBe(original);
  });

  it.each([
    ['FST_ERR_CTP_INVALID_JSON_BODY', 'invalid_request', 400],
    ['FST_ERR_CTP_BODY_TOO_LARGE', 'payload_too_large', 413],
    ['FST_ERR_CTP_INVALID_MEDIA_TYPE', 'unsupported_media_type', 415],
  ])('maps Fastify %s to %s', (fastifyCode, code, status) => {
    const mapped = toDomainException(
      Object.assign(new Error('fastify says no'), { code: fastifyCode, statusCode: 400 }),
    );
    expect(mapped).toMatchObject({ code, status });
  });

  it('gives invalid_request its issues', () => {
    const mapped = toDomainException(
      Object.assign(new Error('bad'), { code: 'FST_ERR_CTP_INVALID_JSON_BODY' }),
    );
    expect(mapped?.details).toEqual({ issues: [{ path: 'body', message: expect.any(String) }] });
  });

  it.each([
    [new BadRequestException('nope'), 'invalid_request'],
    [new ForbiddenException(), 'forbidden'],
    [new NotFoundException(), 'not_found'],
    [new PayloadTooLargeException(), 'payload_too_large'],
  ])('maps Nest %p by status', (exception, code) => {
    expect(toDomainException(exception)?.code).toBe(code);
  });

  it('answers null for faults of ours so they are logged and hidden', () => {
    expect(toDomainException(new Error('boom'))).toBeNull();
    expect(toDomainException(Object.assign(new Error('x'), { statusCode: 500 }))).toBeNull();
  });
});
