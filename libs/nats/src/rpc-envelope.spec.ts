import 'reflect-metadata';

import { currentRequestId, DomainException, requestContext } from '#common';
import { CreateProjectDto, type Principal } from '#contracts';
import { Controller, type INestApplication, Module } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/transport-node';
import { randomUUID } from 'node:crypto';

import { connectNats } from './connection.js';
import { HealthModule, ReadinessChecks, ServiceHealthController } from './health/index.js';
import { RpcData, RpcPrincipal } from './rpc-data.decorator.js';
import { RpcClient } from './rpc.client.js';
import { bootstrapService } from './service-bootstrap.js';

const prefix = `unit_${randomUUID().slice(0, 8)}.`;
const subjects = {
  echo: `${prefix}echo`,
  fail: `${prefix}fail`,
  crash: `${prefix}crash`,
  validate: `${prefix}validate`,
  requestId: `${prefix}request-id`,
};
const principal: Principal = { organizationId: 'org-1', userId: null, keyId: 'key-1', role: 'admin' };

@Controller()
class ProbeHandler {
  @MessagePattern(subjects.echo)
  echo(@RpcPrincipal() caller: Principal, @RpcData('data.value') value: string) {
    return { organizationId: caller.organizationId, value };
  }

  @MessagePattern(subjects.fail)
  fail() {
    throw DomainException.planLimit('projects', 3);
  }

  @MessagePattern(subjects.crash)
  crash() {
    throw new Error('database exploded');
  }

  @MessagePattern(subjects.validate)
  validate(@RpcData('data') input: CreateProjectDto) {
    return input;
  }

  @MessagePattern(subjects.requestId)
  requestId() {
    return currentRequestId() ?? null;
  }
}

@Module({
  imports: [HealthModule],
  controllers: [ServiceHealthController, ProbeHandler],
  providers: [{ provide: ReadinessChecks, useValue: new ReadinessChecks([]) }],
})
class ProbeModule {}

describe('NATS request/reply envelope', () => {
  let app: INestApplication;
  let nats: NatsConnection;
  let client: RpcClient;

  beforeAll(async () => {
    process.env.LOG_LEVEL = 'fatal';
    app = await bootstrapService(ProbeModule, {
      name: 'probe',
      queue: `${prefix}probe`,
      natsUrl: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
      healthPort: 0,
    });
    nats = await connectNats(process.env.NATS_URL ?? 'nats://127.0.0.1:4222', 'probe-client');
    client = new RpcClient(nats, 2_000);
  });

  afterAll(async () => {
    await nats?.close();
    await app?.close();
  });

  it('answers the handler result and carries the principal', async () => {
    await expect(client.request(subjects.echo, principal, { value: 'hi' })).resolves.toEqual({
      organizationId: 'org-1',
      value: 'hi',
    });
  });

  it('turns a domain exception into the same exception on the caller side', async () => {
    const error = await client.request(subjects.fail, principal, {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DomainException);
    expect(error).toMatchObject({ code: 'plan_limit_reached', details: { resource: 'projects', limit: 3 } });
  });

  it('hides an unexpected error behind internal with an error id', async () => {
    const envelope = await client.requestEnvelope(subjects.crash, { principal, data: {} });
    expect(envelope).toEqual({
      ok: false,
      error: { status: 500, code: 'internal', message: expect.stringMatching(/error id [0-9a-f-]{36}/) },
    });
    expect(JSON.stringify(envelope)).not.toContain('exploded');
  });

  it('validates DTO-typed data with one issue per problem', async () => {
    const error = (await client
      .request(subjects.validate, principal, { name: '', description: 7 })
      .catch((caught: unknown) => caught)) as DomainException;
    expect(error.code).toBe('invalid_request');
    const paths = (error.details?.issues as Array<{ path: string }>).map((issue) => issue.path);
    expect(paths).toEqual(expect.arrayContaining(['name', 'description']));
  });

  it('carries the request id in NATS headers to the handler', async () => {
    const seen = await requestContext.run({ requestId: 'req-42' }, () =>
      client.request(subjects.requestId, principal, {}),
    );
    expect(seen).toBe('req-42');
  });

  it('answers service_unavailable when nobody listens', async () => {
    const error = await client.request(`${prefix}nobody`, principal, {}).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'service_unavailable' });
  });
});
