import { DomainException } from '#common';
import {
  BadRequestException,
  ForbiddenException,
  HttpException,
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

  it.each([
    ['FST_ERR_CTP_INVALID_JSON_BODY', 'body'],
    ['FST_ERR_CTP_EMPTY_JSON_BODY', 'body'],
    ['FST_ERR_CTP_INVALID_CONTENT_LENGTH', 'body'],
    ['FST_ERR_BAD_URL', 'path'],
    ['FST_ERR_MAX_PARAM_LENGTH', 'path'],
  ])('gives Fastify %s the issues of an invalid_request, at %s', (fastifyCode, path) => {
    const mapped = toDomainException(Object.assign(new Error('bad'), { code: fastifyCode, statusCode: 400 }));
    expect(mapped).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(mapped?.details).toEqual({ issues: [{ path, message: expect.any(String) }] });
  });

  it('reads the Fastify error inside the HttpException Nest wraps it in', () => {
    const fastify = Object.assign(
      new Error("Body is not valid JSON but content-type is set to 'application/json'"),
      {
        code: 'FST_ERR_CTP_INVALID_JSON_BODY',
        statusCode: 400,
      },
    );
    const mapped = toDomainException(new HttpException(fastify.message, 400, { cause: fastify }));
    expect(mapped).toMatchObject({ code: 'invalid_request', message: 'The body is not valid JSON.' });
    expect(mapped?.details).toEqual({ issues: [{ path: 'body', message: 'The body is not valid JSON.' }] });
  });

  it.each([
    ['a Nest 400', new BadRequestException('nope')],
    ['an error with statusCode 400', Object.assign(new Error('nope'), { statusCode: 400 })],
  ])('gives %s the issues of an invalid_request', (_label, error) => {
    expect(toDomainException(error)?.details).toEqual({ issues: [{ path: '', message: 'nope' }] });
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
