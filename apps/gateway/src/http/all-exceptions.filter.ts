import { DomainException, toErrorBody } from '#common';
import { type ArgumentsHost, Catch, type ExceptionFilter, NotFoundException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';

import type { ConsoleAssets } from '../console/console-assets.js';
import { toDomainException } from './http-error.mapper.js';
import type { RouteTable } from './route-table.js';

/** Every error the gateway answers has the contract's shape `{error: {code, message, details?}}`. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(
    private readonly logger: Logger,
    private readonly routes: RouteTable,
    private readonly console?: ConsoleAssets,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    this.send(exception, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }

  /** Also answers what Fastify refuses before routing (its `frameworkErrors`), which Nest never sees. */
  send(exception: unknown, request: FastifyRequest, reply: FastifyReply): void {
    // A page of the console (a client route such as /workflows/…) is no route of the server.
    if (exception instanceof NotFoundException && !(exception instanceof DomainException)) {
      if (this.console?.fallback(request, reply)) return;
    }
    sendError(exception, request, reply, this.logger, this.routes);
  }
}

function sendError(
  exception: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  logger: Logger,
  routes: RouteTable,
): void {
  let error = toDomainException(exception);
  if (exception instanceof NotFoundException && !(exception instanceof DomainException)) {
    error = unknownRoute(request, reply, routes);
  }
  if (!error) {
    const errorId = randomUUID();
    logger.error({ err: exception, errorId, method: request.method, url: request.url }, 'unexpected error');
    error = new DomainException('internal', `Something went wrong on our side (error id ${errorId}).`);
  }
  void reply
    .status(error.status)
    .header('content-type', 'application/json; charset=utf-8')
    .send(toErrorBody(error));
}

function unknownRoute(request: FastifyRequest, reply: FastifyReply, routes: RouteTable): DomainException {
  const allowed = routes.allowedMethods(request.url);
  if (allowed.length > 0) {
    reply.header('Allow', allowed.join(', '));
    return new DomainException(
      'method_not_allowed',
      `${request.method} is not allowed here; use ${allowed.join(', ')}.`,
    );
  }
  return new DomainException('not_found', `No route ${request.method} ${request.url.split('?')[0]}.`);
}
