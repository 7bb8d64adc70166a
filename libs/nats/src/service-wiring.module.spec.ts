import 'reflect-metadata';

import type { NatsConnection } from '@nats-io/transport-node';
import {
  type DynamicModule,
  Inject,
  Injectable,
  type INestApplicationContext,
  Module,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { HealthCheckService } from '@nestjs/terminus';

import { readinessOf } from './app-entry.js';
import { connectNats } from './connection.js';
import { ReadinessChecks } from './health/readiness-checks.js';
import { RpcClient } from './rpc.client.js';
import { NATS_CONNECTION, ServiceWiringModule } from './service-wiring.module.js';

const endpoint = { url: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', identity: 'gateway' } as const;

/** Stands for one of the gateway's clients that has a connection of its own. */
class SideClient {
  constructor(readonly nats: NatsConnection) {}
}

/** Records whether the wiring's connection was still usable when the app's own shutdown hook ran. */
@Injectable()
class ShutdownWitness implements OnApplicationShutdown {
  connectionOpen?: boolean;

  constructor(@Inject(NATS_CONNECTION) private readonly nats: NatsConnection) {}

  onApplicationShutdown(): void {
    this.connectionOpen = !this.nats.isClosed() && !this.nats.isDraining();
  }
}

@Module({})
class GatewayLikeModule {
  static forRoot(): DynamicModule {
    return {
      module: GatewayLikeModule,
      imports: [
        ServiceWiringModule.forGateway({
          nats: endpoint,
          connection: { name: 'wiring-spec', check: 'nats' },
          connections: { nats_side: SideClient },
          checks: [() => ({ companion: { status: 'up' } })],
        }),
      ],
      providers: [
        {
          provide: SideClient,
          useFactory: async () => new SideClient(await connectNats(endpoint, 'wiring-spec-side')),
        },
        ShutdownWitness,
      ],
    };
  }
}

describe('ServiceWiringModule', () => {
  let app: INestApplicationContext;

  beforeAll(async () => {
    process.env.LOG_LEVEL = 'fatal';
    app = await NestFactory.createApplicationContext(GatewayLikeModule.forRoot(), { logger: false });
  });

  afterAll(async () => {
    const side = app.get(SideClient).nats;
    if (!side.isClosed()) await side.close();
    if (!app.get<NatsConnection>(NATS_CONNECTION).isClosed()) await app.close();
  });

  const readiness = () =>
    readinessOf('app', () => app.get(HealthCheckService).check([...app.get(ReadinessChecks).checks]));

  it('gives the importing module its connection and an RpcClient on it', () => {
    expect(app.get<NatsConnection>(NATS_CONNECTION).isClosed()).toBe(false);
    expect(app.get(RpcClient)).toBeInstanceOf(RpcClient);
  });

  it("checks the app's connection, the connections of the app's own providers, and the extra checks", async () => {
    await expect(readiness()).resolves.toEqual({ app: { status: 'up' } });
    await app.get(SideClient).nats.close();
    await expect(readiness()).resolves.toEqual({
      app: { status: 'down', nats_side: expect.objectContaining({ status: 'down' }) },
    });
  });

  it("drains the connection after the app's own shutdown hooks ran", async () => {
    const connection = app.get<NatsConnection>(NATS_CONNECTION);
    const witness = app.get(ShutdownWitness);
    await app.close();
    expect(witness.connectionOpen).toBe(true);
    expect(connection.isClosed()).toBe(true);
  });
});
