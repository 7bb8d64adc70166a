import {
  createLogger,
  DomainException,
  loadConfig,
  memoizeValidationMetadata,
  refuseUnsafeProduction,
  requestContext,
  sendMetrics,
  serveMetrics,
} from '#common';
import { REQUEST_ID_HEADER } from '#contracts';
import { type AppStartOptions, nestLogger, readinessOf, type RunningApp } from '#nats';
import { NotFoundException } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';

import { RequestGate } from './auth/request-gate.js';
import { edgeConfigOf, type EdgeRouteConfig } from './auth/route-config.js';
import { ConsoleAssets } from './console/console-assets.js';
import { setupOpenApi } from './docs/openapi.js';
import { GatewayConfig } from './gateway.config.js';
import { GatewayModule } from './gateway.module.js';
import { HealthProbesController } from './health/health-probes.controller.js';
import { AllExceptionsFilter } from './http/all-exceptions.filter.js';
import { GatewayValidationPipe } from './http/gateway-validation.pipe.js';
import { observeHttpRequest } from './http/http.metrics.js';
import { isHookRoute, type RawBodyRequest } from './hooks/raw-body.js';
import { HttpTracing } from './http/http-tracing.js';
import { nulCharacterPath } from './http/nul-text.js';
import { RouteTable } from './http/route-table.js';
import { securityHeadersFor } from './http/security-headers.js';

/** Paths of the files the gateway serves itself (the console's, the reference's): public, body-less. */
const SERVED_FILES = /^\/(assets|docs)(\/|$)/;
const REFERENCE = /^\/docs\/api(\/|$)/;

/** What the edge must know of the routes registered outside Nest's controllers, read off their paths. */
function withServedFiles(url: string, config: unknown): EdgeRouteConfig {
  const edge = edgeConfigOf(config);
  if (!SERVED_FILES.test(url) || edge.access !== undefined) return edge;
  return { ...edge, access: 'public', ...(REFERENCE.test(url) ? { referencePage: true } : {}) };
}

/**
 * Whether a refused request's body is better cut off than read: one larger than the route takes, or
 * of unknown length. A smaller one is read and dropped (Node does it once the answer is sent), so
 * that the client, still sending, is not reset before it reads the answer.
 */
function hasBodyToCutOff(request: FastifyRequest): boolean {
  if (request.headers['transfer-encoding'] !== undefined) return true;
  const length = Number(request.headers['content-length'] ?? 0);
  return !(length <= (request.routeOptions.bodyLimit ?? 0));
}

/**
 * `/metrics` on the public port too, when `METRICS_ON_PUBLIC_PORT` asks for it (a platform that
 * scrapes only the port it routes to): public like the probes, since Prometheus sends no credential.
 */
function serveMetricsOnPublicPort(fastify: FastifyInstance): void {
  fastify.get('/metrics', { config: { access: 'public' } satisfies EdgeRouteConfig }, (_request, reply) => {
    reply.hijack();
    sendMetrics(reply.raw);
  });
}

/** The gateway's HTTP server: Fastify under Nest, with its hooks, parsers, filters and OpenAPI. */
export async function startGateway({ standalone, companions = [] }: AppStartOptions): Promise<RunningApp> {
  memoizeValidationMetadata();
  const config = loadConfig(GatewayConfig);
  refuseUnsafeProduction('gateway', config);
  const logger = createLogger('gateway');
  const routes = new RouteTable();
  const consoleAssets = ConsoleAssets.at(config.CONSOLE_DIR);
  const errors = new AllExceptionsFilter(logger, routes, consoleAssets);

  const adapter = new FastifyAdapter({
    bodyLimit: config.BODY_LIMIT_BYTES,
    requestIdHeader: REQUEST_ID_HEADER,
    genReqId: () => randomUUID(),
    trustProxy: config.trustProxy,
    // A malformed URL or an over-long path parameter is refused before the onRequest hook runs.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      void reply.header(REQUEST_ID_HEADER, request.id);
      errors.send(error, request, reply);
    },
  });
  const fastify = adapter.getInstance();
  fastify.addHook('onRoute', (route) => {
    routes.add(route.method, route.url);
    route.config = withServedFiles(route.url, route.config);
    route.bodyLimit = config.bodyLimitOf(edgeConfigOf(route.config).bodySize);
  });
  const securityHeaders = securityHeadersFor(config.PUBLIC_URL);
  // Set once Nest has made the gate, before the server listens.
  const edge: { gate?: RequestGate } = {};
  // First of the hooks: the request's span is active in every later one and in the handler.
  new HttpTracing().register(fastify);
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    // First, so that refusals carry them too.
    const headers = edgeConfigOf(request.routeOptions.config).referencePage
      ? securityHeaders.reference
      : securityHeaders.api;
    headers(request.raw, reply.raw);
    // The client address and User-Agent travel with the request id to the services, for the audit log.
    const userAgent = request.headers['user-agent'];
    requestContext.run({ requestId: request.id, clientAddress: request.ip, userAgent }, () => {
      const refuse = (error: unknown) => {
        if (hasBodyToCutOff(request)) void reply.header('connection', 'close');
        errors.send(error, request, reply);
      };
      if (request.is404) {
        // An unknown route needs no body, whatever it announces: it is answered before one is read.
        if (request.method === 'GET' || request.method === 'HEAD') return done();
        return refuse(new NotFoundException());
      }
      if (!edge.gate) return refuse(new DomainException('service_unavailable', 'The gateway is starting.'));
      edge.gate.admit(request, reply).then(() => done(), refuse);
    });
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    observeHttpRequest(
      request.routeOptions.url,
      request.is404,
      request.method,
      reply.statusCode,
      reply.elapsedTime,
    );
    logger.info(
      {
        requestId: request.id,
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request',
    );
    done();
  });
  // Bodiless POSTs (publish, pause) are common with a JSON content type; an empty body means "no body".
  const defaultJsonParser = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (isHookRoute(request.routeOptions.url)) {
      // A webhook's body is the events service's to read, once its signature is checked.
      (request as RawBodyRequest).rawBody = text;
      done(null, undefined);
    } else if (text.trim() === '') done(null, undefined);
    else
      void defaultJsonParser(request, text, (error: Error | null, body?: unknown) => {
        // JSON can hold U+0000 only as the escape `\u0000` (a raw control character is not valid
        // JSON), so a body without that text is not walked: every POST goes through here.
        const nul = error || !text.includes('\\u0000') ? undefined : nulCharacterPath(body);
        if (nul === undefined) return done(error, body);
        const message = 'Text may not contain the NUL character (U+0000).';
        done(
          DomainException.invalidRequest([{ path: nul === '' ? 'body' : nul, message }], message),
          undefined,
        );
      });
  });

  const app = await NestFactory.create<NestFastifyApplication>(
    GatewayModule.forRoot(config, companions),
    adapter,
    {
      logger: nestLogger('gateway', !standalone),
      // Thrown to the caller rather than exiting, as for the services (libs/nats service-bootstrap).
      abortOnError: false,
      bodyParser: false,
    },
  );
  edge.gate = app.get(RequestGate);
  app.useGlobalPipes(new GatewayValidationPipe());
  app.useGlobalFilters(errors);
  if (standalone) app.enableShutdownHooks();
  setupOpenApi(app, config.PUBLIC_URL);
  consoleAssets.register(app);
  if (config.METRICS_ON_PUBLIC_PORT) serveMetricsOnPublicPort(fastify);
  const metrics = await serveMetrics(config.METRICS_PORT, config.HOST);
  try {
    await app.listen(config.PORT, config.HOST);
  } catch (error) {
    await metrics.close();
    throw error;
  }
  const url = await app.getUrl();
  const probes = app.get(HealthProbesController);
  logger.info(
    { url, metricsUrl: `${metrics.url}/metrics`, console: consoleAssets.enabled },
    'gateway is ready',
  );
  return {
    name: 'gateway',
    url,
    ready: () => readinessOf('gateway', () => probes.ready()),
    close: async () => {
      await metrics.close();
      await app.close();
    },
  } satisfies RunningApp;
}
