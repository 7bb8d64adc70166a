import { createLogger, PinoNestLogger } from '#common';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type MicroserviceOptions, Transport } from '@nestjs/microservices';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { NatsConnection } from '@nats-io/transport-node';

import { type NatsEndpoint, natsConnectionOptions } from './connection.js';
import { NatsServerConnection } from './health/nats-server-connection.js';
import { RpcEnvelopeInterceptor } from './rpc-envelope.interceptor.js';
import { RpcExceptionFilter } from './rpc-exception.filter.js';

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
  // Registered before connecting so the NATS server inherits them.
  app.useGlobalInterceptors(new RpcEnvelopeInterceptor());
  app.useGlobalFilters(new RpcExceptionFilter(logger));
  app.connectMicroservice<MicroserviceOptions>(
    {
      transport: Transport.NATS,
      options: { ...natsConnectionOptions(options.nats), queue: options.queue, name: options.name },
    },
    { inheritAppConfig: true },
  );
  app.enableShutdownHooks();
  await app.startAllMicroservices();
  const [server] = app.getMicroservices();
  app.get(NatsServerConnection).attach(server.unwrap<NatsConnection>());
  await app.listen(options.healthPort, '0.0.0.0');
  logger.info({ healthUrl: await app.getUrl() }, `${options.name} is ready`);
  return app;
}
