import {
  collectProcessMetrics,
  createLogger,
  memoizeValidationMetadata,
  PinoNestLogger,
  sendMetrics,
} from '#common';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';

import { readinessOf, type RunningApp } from './app-entry.js';
import type { NatsEndpoint } from './connection.js';
import { NatsServerConnection } from './health/nats-server-connection.js';
import { ServiceHealthController } from './health/service-health.controller.js';
import { RpcServer } from './rpc.server.js';

export interface ServiceBootstrapOptions {
  name: string;
  queue: string;
  nats: NatsEndpoint;
  /**
   * Port of the HTTP health probes; 0 picks a free one. Absent, the service serves no HTTP and leaves
   * signals alone: it shares its process with others, and the launcher answers for all of them.
   */
  healthPort?: number;
}

/**
 * Starts a service: its NATS handlers in the service's queue group and, alone in its process, a small
 * HTTP server whose only routes are the health probes and `/metrics` (`ServiceHealthController`, which the service
 * module declares with the `HealthModule` and its `ReadinessChecks`) that Kubernetes and the test
 * harness poll.
 */
export async function bootstrapService(
  module: unknown,
  options: ServiceBootstrapOptions,
): Promise<RunningApp> {
  const logger = createLogger(options.name);
  memoizeValidationMetadata();
  const app = await NestFactory.create<NestFastifyApplication>(module as never, new FastifyAdapter(), {
    logger: nestLogger(options.name, options.healthPort === undefined),
    // A provider that fails (the database unreachable) is thrown to the caller, so the all-in-one
    // launcher can stop the apps it already started; Nest's default would exit the process on the spot.
    abortOnError: false,
  });
  if (options.healthPort !== undefined) app.enableShutdownHooks();
  // Handlers may rely on their modules' init hooks, so those run before the first request can arrive.
  await app.init();
  app.get(NatsServerConnection).attach(await RpcServer.start(app, options));
  let url: string | undefined;
  if (options.healthPort === undefined) {
    logger.info(`${options.name} is ready`);
  } else {
    serveMetricsOn(app);
    await app.listen(options.healthPort, '0.0.0.0');
    url = await app.getUrl();
    logger.info({ healthUrl: url }, `${options.name} is ready`);
  }
  return runningService(options.name, app, url);
}

/**
 * `/metrics` beside the probes, on the health port of a service alone in its process: the process's
 * metrics, in the Prometheus text format. Served by Fastify itself, as a probe is, outside Nest's
 * pipeline.
 */
export function serveMetricsOn(app: NestFastifyApplication): void {
  collectProcessMetrics();
  app
    .getHttpAdapter()
    .getInstance()
    .get('/metrics', (_request, reply) => {
      reply.hijack();
      sendMetrics(reply.raw);
    });
}

/**
 * Nest writes its own lines through one logger per process, the last app's to start: in a shared
 * process they are the process's, not one service's.
 */
export function nestLogger(name: string, sharesProcess: boolean): PinoNestLogger {
  return new PinoNestLogger(createLogger(sharesProcess ? 'flowmesh' : name));
}

function runningService(name: string, app: INestApplication, url: string | undefined): RunningApp {
  const health = app.get(ServiceHealthController);
  return {
    name,
    url,
    ready: () => readinessOf(name, () => health.ready()),
    close: () => app.close(),
  };
}
