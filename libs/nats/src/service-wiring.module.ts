import type { NatsConnection } from '@nats-io/transport-node';
import {
  type DynamicModule,
  Inject,
  Module,
  type OnApplicationShutdown,
  type Provider,
  type Type,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { type HealthIndicatorFunction, TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { Logger } from 'pino';

import { connectNats, type NatsEndpoint } from './connection.js';
import { HealthModule } from './health/health.module.js';
import { NatsHealthIndicator } from './health/nats.health.js';
import { ReadinessChecks } from './health/readiness-checks.js';
import { ServiceHealthController } from './health/service-health.controller.js';
import { JetStreamQueue } from './jetstream/jetstream-queue.js';
import type { JobDefinition } from './jetstream/job-definition.js';
import { DEFAULT_METRICS_POLL_MS, JetStreamMetrics } from './metrics/jetstream.metrics.js';
import { type RequestLanes, RpcClient } from './rpc.client.js';

/**
 * The app's own NATS connection: its requests, events and jobs go out on it. The RPC server that
 * answers the app's subjects has a connection of its own (`NatsServerConnection`).
 */
export const NATS_CONNECTION = Symbol('NATS_CONNECTION');

export interface WiringOptions {
  nats: NatsEndpoint;
  /** The app's own connection: its name on the NATS server, and the key of its readiness check. */
  connection: { name: string; check: string };
  /** How long the app's requests wait for an answer (`RPC_TIMEOUT_MS`); absent, `DEFAULT_RPC_TIMEOUT_MS`. */
  rpcTimeoutMs?: number;
  /** Each organization's requests in flight at once; absent, no bound. */
  rpcLanes?: RequestLanes;
}

/** A provider of the app that queues jobs: the stream its readiness check asks about is its definition's. */
export type JobQueue = Type<{ readonly definition: JobDefinition<unknown> }>;

export interface ServiceWiringOptions extends WiringOptions {
  /** For a service that queues jobs: its `JetStreamQueue`, and readiness checks on its job streams. */
  jetStream?: {
    /** `NATS_STREAM_REPLICAS`. */
    replicas: number;
    logger: Logger;
    /** The app's job queues, by the key of their stream's readiness check. */
    queues: Record<string, JobQueue>;
    /** How often the queues' consumers are read for the metrics (`METRICS_POLL_MS`). */
    metricsPollMs?: number;
  };
}

export interface GatewayWiringOptions extends WiringOptions {
  /** The gateway's other connections (providers holding one as `nats`), by the key of their check. */
  connections: Record<string, Type<{ readonly nats: NatsConnection }>>;
  /** Checks beyond NATS: in the all-in-one process, the readiness of the apps beside the gateway. */
  checks: readonly HealthIndicatorFunction[];
}

/**
 * What every app wires the same way: its NATS connection, an `RpcClient` on it, a `JetStreamQueue`
 * when it queues jobs, the `HealthModule`, and its `ReadinessChecks` (a service's Postgres, its
 * connection and streams; the gateway's connections). The importing module gets all of them.
 *
 * The readiness checks ask about the app's own providers (job queues, the gateway's clients), which an
 * imported module cannot inject: they are looked up when a probe runs, as Terminus looks up the
 * data source for its Postgres check.
 */
@Module({})
export class ServiceWiringModule implements OnApplicationShutdown {
  constructor(@Inject(NATS_CONNECTION) private readonly nats: NatsConnection) {}

  /** A NATS service: with its Postgres in its readiness, and the health probes of its own port. */
  static forService(options: ServiceWiringOptions): DynamicModule {
    const { jetStream } = options;
    const queues = Object.entries(jetStream?.queues ?? {});
    return {
      module: ServiceWiringModule,
      imports: [HealthModule],
      controllers: [ServiceHealthController],
      providers: [
        ...connectionProviders(options),
        ...(jetStream
          ? [
              {
                provide: JetStreamQueue,
                inject: [NATS_CONNECTION],
                useFactory: (nats: NatsConnection) =>
                  new JetStreamQueue(nats, jetStream.logger, jetStream.replicas),
              },
              {
                provide: JetStreamMetrics,
                inject: [JetStreamQueue, ModuleRef],
                useFactory: (queue: JetStreamQueue, modules: ModuleRef) =>
                  new JetStreamMetrics(
                    queue,
                    () => queues.map(([, jobs]) => modules.get(jobs, { strict: false }).definition),
                    jetStream.metricsPollMs ?? DEFAULT_METRICS_POLL_MS,
                    jetStream.logger,
                  ),
              },
            ]
          : []),
        {
          provide: ReadinessChecks,
          inject: [TypeOrmHealthIndicator, NatsHealthIndicator, NATS_CONNECTION, ModuleRef],
          useFactory: (
            postgres: TypeOrmHealthIndicator,
            nats: NatsHealthIndicator,
            connection: NatsConnection,
            modules: ModuleRef,
          ) =>
            new ReadinessChecks([
              () => postgres.pingCheck('postgres'),
              () => nats.pingCheck(options.connection.check, connection),
              ...queues.map(
                ([key, jobs]) =>
                  () =>
                    nats.streamCheck(
                      key,
                      modules.get(JetStreamQueue),
                      modules.get(jobs, { strict: false }).definition,
                    ),
              ),
            ]),
        },
      ],
      exports: [HealthModule, ...wiringExports, ...(jetStream ? [JetStreamQueue] : [])],
    };
  }

  /** The gateway: no database, and probes of its own (`HealthProbesController`) on its public port. */
  static forGateway(options: GatewayWiringOptions): DynamicModule {
    const connections = Object.entries(options.connections);
    return {
      module: ServiceWiringModule,
      imports: [HealthModule],
      providers: [
        ...connectionProviders(options),
        {
          provide: ReadinessChecks,
          inject: [NatsHealthIndicator, NATS_CONNECTION, ModuleRef],
          useFactory: (nats: NatsHealthIndicator, connection: NatsConnection, modules: ModuleRef) =>
            new ReadinessChecks([
              () => nats.pingCheck(options.connection.check, connection),
              ...connections.map(
                ([key, client]) =>
                  () =>
                    nats.pingCheck(key, modules.get(client, { strict: false }).nats),
              ),
              ...options.checks,
            ]),
        },
      ],
      exports: [HealthModule, ...wiringExports],
    };
  }

  /**
   * Nest shuts an importing module down before its imports, so this runs after the app's own
   * shutdown hooks: what they still send goes out before the connection closes.
   */
  async onApplicationShutdown(): Promise<void> {
    await this.nats.drain();
  }
}

const wiringExports = [NATS_CONNECTION, RpcClient, ReadinessChecks];

function connectionProviders({ nats, connection, rpcTimeoutMs, rpcLanes }: WiringOptions): Provider[] {
  return [
    {
      provide: NATS_CONNECTION,
      useFactory: (): Promise<NatsConnection> => connectNats(nats, connection.name),
    },
    {
      provide: RpcClient,
      inject: [NATS_CONNECTION],
      // Connections are named `<service>-<role>`: the service names the client's spans.
      useFactory: (client: NatsConnection) =>
        new RpcClient(client, rpcTimeoutMs, connection.name.split('-')[0], rpcLanes),
    },
  ];
}
