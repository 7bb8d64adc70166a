import { createLogger, PinoNestLogger } from '#common';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';

import type { NatsEndpoint } from './connection.js';
import { NatsServerConnection } from './health/nats-server-connection.js';
import { RpcServer } from './rpc.server.js';

export interface ServiceBootstrapOptions {
  name: string;
  queue: string;
  nats: NatsEndpoint;
  /** Port of the HTTP health probe; 0 picks a free one. */
  healthPort: number;
}

/**
 * Starts a service: its NATS handlers in the service's queue group, and a small HTTP server whose
 * only routes are the health probes (`ServiceHealthController`, which the service module declares
 * with the `HealthModule` and its `ReadinessChecks`) that Kubernetes and the test harness poll.
 */
export async function bootstrapService(
  module: unknown,
  options: ServiceBootstrapOptions,
): Promise<INestApplication> {
  const logger = createLogger(options.name);
  const app = await NestFactory.create<NestFastifyApplication>(module as never, new FastifyAdapter(), {
    logger: new PinoNestLogger(logger),
  });
  app.enableShutdownHooks();
  // Handlers may rely on their modules' init hooks, so those run before the first request can arrive.
  await app.init();
  app.get(NatsServerConnection).attach(await RpcServer.start(app, options));
  await app.listen(options.healthPort, '0.0.0.0');
  logger.info({ healthUrl: await app.getUrl() }, `${options.name} is ready`);
  return app;
}
