import {
  extractTraceContext,
  failSpan,
  SERVICE_ATTRIBUTE,
  type Span,
  SpanKind,
  SpanStatusCode,
  startSpan,
  withSpan,
} from '#common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The gateway's server span of each HTTP request (docs/tracing.md): named by method and route
 * template (`GET /api/v1/runs/:id`), child of the `traceparent` the request carried, and the active
 * span while the request is handled, so every NATS request it sends is its child. Nothing while
 * tracing is off.
 */
export class HttpTracing {
  private readonly spans = new WeakMap<FastifyRequest, Span>();

  /** Starts the request's span and runs the rest of its handling (`next`) inside it. */
  handle(request: FastifyRequest, next: () => void): void {
    const route = request.routeOptions.url;
    const span = startSpan(route ? `${request.method} ${route}` : request.method, {
      kind: SpanKind.SERVER,
      parent: extractTraceContext((key) => headerOf(request, key)),
      attributes: {
        [SERVICE_ATTRIBUTE]: 'gateway',
        'http.request.method': request.method,
        'url.path': request.url.split('?')[0] ?? request.url,
        ...(route ? { 'http.route': route } : {}),
      },
    });
    if (!span) return next();
    this.spans.set(request, span);
    withSpan(span, next);
  }

  /** Ends the request's span with its status: an error from 500 on. */
  ended(request: FastifyRequest, reply: FastifyReply): void {
    const span = this.spans.get(request);
    if (!span) return;
    this.spans.delete(request);
    span.setAttribute('http.response.status_code', reply.statusCode);
    if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }

  /** The client went away before the answer: the span ends as failed. */
  aborted(request: FastifyRequest): void {
    const span = this.spans.get(request);
    if (!span) return;
    this.spans.delete(request);
    failSpan(span, new Error('The client closed the connection before the answer.'));
    span.end();
  }

  register(fastify: FastifyInstance): void {
    // Fastify calls the next hook from `done`, so what follows runs inside the span's context.
    fastify.addHook('onRequest', (request, _reply, done) => this.handle(request, () => done()));
    fastify.addHook('onResponse', (request, reply, done) => {
      this.ended(request, reply);
      done();
    });
    fastify.addHook('onRequestAbort', (request, done) => {
      this.aborted(request);
      done();
    });
  }
}

function headerOf(request: FastifyRequest, key: string): string | undefined {
  const value = request.headers[key];
  return Array.isArray(value) ? value[0] : value;
}
