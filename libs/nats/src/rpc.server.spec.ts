import 'reflect-metadata';

import { currentRequestId, DomainException, requestContext } from '#common';
import {
  CreateProjectDto,
  EmptyRequest,
  IdRequest,
  type Principal,
  returns,
  rpc,
  systemRpc,
  WORKING_HEADER,
  WORKING_INTERVAL_MS,
} from '#contracts';
import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NatsConnection } from '@nats-io/transport-node';
import { randomUUID } from 'node:crypto';

import type { RunningApp } from './app-entry.js';
import { connectNats } from './connection.js';
import { Handles } from './handles.decorator.js';
import { HealthModule, ReadinessChecks, ServiceHealthController } from './health/index.js';
import { NoResponders, RpcClient } from './rpc.client.js';
import { RpcServer } from './rpc.server.js';
import { bootstrapService } from './service-bootstrap.js';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const endpoint = { url: NATS_URL, identity: 'catalog' } as const;
const scope = `catalog.unit_${randomUUID().slice(0, 8)}`;
const Probe = {
  echo: rpc(`${scope}.echo`, IdRequest, {
    callers: ['gateway'],
    reply: returns<{ organizationId: string; id: string }>(),
  }),
  fail: rpc(`${scope}.fail`, EmptyRequest, { callers: ['gateway'], reply: returns<never>() }),
  crash: rpc(`${scope}.crash`, EmptyRequest, { callers: ['gateway'], reply: returns<never>() }),
  validate: rpc(`${scope}.validate`, CreateProjectDto, {
    callers: ['gateway'],
    reply: returns<CreateProjectDto>(),
  }),
  requestId: rpc(`${scope}.request-id`, EmptyRequest, {
    callers: ['gateway'],
    reply: returns<string | null>(),
  }),
  system: systemRpc(`${scope}.system`, IdRequest, {
    callers: ['admin'],
    reply: returns<{ id: string; caller: null }>(),
  }),
  nobody: rpc(`${scope}.nobody`, EmptyRequest, { callers: ['gateway'], reply: returns<never>() }),
  passOn: rpc(`${scope}.pass-on`, IdRequest, { callers: ['gateway'], reply: returns<number>() }),
  late: rpc(`${scope}.late`, EmptyRequest, { callers: ['gateway'], reply: returns<string>() }),
  long: rpc(`${scope}.long`, EmptyRequest, { callers: ['gateway'], reply: returns<string>(), working: true }),
};
const principal: Principal = { organizationId: 'org-1', userId: null, keyId: 'key-1', role: 'admin' };

@Controller()
class ProbeHandler {
  @Handles(Probe.echo)
  echo({ id }: IdRequest, caller: Principal) {
    return { organizationId: caller.organizationId, id };
  }

  @Handles(Probe.fail)
  fail(): never {
    throw DomainException.planLimit('projects', 3);
  }

  @Handles(Probe.crash)
  crash(): never {
    throw new Error('database exploded');
  }

  @Handles(Probe.validate)
  validate(input: CreateProjectDto) {
    return input;
  }

  private readonly passOnTries = new Map<string, number>();

  /** A replica that could not pass the request on the first two times (`unserved`), or says it timed out. */
  @Handles(Probe.passOn)
  passOn({ id }: IdRequest) {
    const tries = (this.passOnTries.get(id) ?? 0) + 1;
    this.passOnTries.set(id, tries);
    if (tries > 2) return tries;
    throw new DomainException(
      'service_unavailable',
      'not passed on',
      id === 'unserved' ? { unserved: true } : undefined,
    );
  }

  @Handles(Probe.long)
  async long() {
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    return 'finished';
  }

  @Handles(Probe.requestId)
  requestId() {
    return currentRequestId() ?? null;
  }

  @Handles(Probe.system)
  system({ id }: IdRequest, caller: null) {
    return { id, caller };
  }
}

@Module({
  imports: [HealthModule],
  controllers: [ServiceHealthController, ProbeHandler],
  providers: [{ provide: ReadinessChecks, useValue: new ReadinessChecks([]) }],
})
class ProbeModule {}

describe('catalog subjects over NATS request/reply', () => {
  let app: RunningApp;
  let nats: NatsConnection;
  let client: RpcClient;

  /** Sends a message the way an untyped peer could, bypassing the typed client. */
  async function raw(subject: string, message: unknown): Promise<unknown> {
    const payload = typeof message === 'string' ? message : JSON.stringify(message);
    return (await nats.request(subject, payload, { timeout: 2_000 })).json();
  }

  beforeAll(async () => {
    process.env.LOG_LEVEL = 'fatal';
    app = await bootstrapService(ProbeModule, {
      name: 'probe',
      queue: `${scope}.probe`,
      nats: endpoint,
      healthPort: 0,
    });
    nats = await connectNats({ url: NATS_URL, identity: 'gateway' }, 'probe-client');
    client = new RpcClient(nats, 2_000);
  });

  afterAll(async () => {
    await nats?.close();
    await app?.close();
  });

  it('hands the handler the validated request and the caller', async () => {
    await expect(client.request(Probe.echo, principal, { id: 'p-1' })).resolves.toEqual({
      organizationId: 'org-1',
      id: 'p-1',
    });
  });

  it('turns a domain exception into the same exception on the caller side', async () => {
    const error = await client.request(Probe.fail, principal, {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DomainException);
    expect(error).toMatchObject({ code: 'plan_limit_reached', details: { resource: 'projects', limit: 3 } });
  });

  it('hides an unexpected error behind internal with an error id', async () => {
    const envelope = await client.requestEnvelope(Probe.crash, principal, {});
    expect(envelope).toEqual({
      ok: false,
      error: { status: 500, code: 'internal', message: expect.stringMatching(/error id [0-9a-f-]{36}/) },
    });
    expect(JSON.stringify(envelope)).not.toContain('exploded');
  });

  it('refuses a request that breaks its class, one issue per problem, and drops unknown fields', async () => {
    const forged = { name: '', description: 7 } as unknown as CreateProjectDto;
    const error = (await client
      .request(Probe.validate, principal, forged)
      .catch((caught: unknown) => caught)) as DomainException;
    expect(error.code).toBe('invalid_request');
    const paths = (error.details?.issues as Array<{ path: string }>).map((issue) => issue.path);
    expect(paths).toEqual(expect.arrayContaining(['name', 'description']));

    const extra = { name: 'Kept', injected: true } as unknown as CreateProjectDto;
    await expect(client.request(Probe.validate, principal, extra)).resolves.toEqual({ name: 'Kept' });
  });

  it('refuses an organization-scoped message without a well-formed principal', async () => {
    await expect(raw(Probe.echo.name, { data: { id: 'p-1' } })).resolves.toMatchObject({
      ok: false,
      error: {
        code: 'invalid_request',
        details: { issues: [expect.objectContaining({ path: 'principal' })] },
      },
    });
    const negative = { ...principal, organizationId: 42, role: 'superuser' };
    const answer = (await raw(Probe.echo.name, { principal: negative, data: { id: 'p-1' } })) as {
      error: { details: { issues: Array<{ path: string }> } };
    };
    expect([...new Set(answer.error.details.issues.map((issue) => issue.path))].sort()).toEqual([
      'principal.organizationId',
      'principal.role',
    ]);
  });

  it('refuses a message whose data is not an object', async () => {
    await expect(raw(Probe.echo.name, { principal, data: 'p-1' })).resolves.toMatchObject({
      ok: false,
      error: { code: 'invalid_request' },
    });
  });

  it('refuses a message that is not JSON', async () => {
    await expect(raw(Probe.echo.name, 'not json')).resolves.toMatchObject({
      ok: false,
      error: { code: 'invalid_request', details: { issues: [{ path: '', message: expect.any(String) }] } },
    });
  });

  it('serves a system subject without a principal', async () => {
    await expect(client.request(Probe.system, null, { id: 'org-9' })).resolves.toEqual({
      id: 'org-9',
      caller: null,
    });
  });

  it('carries the request id in NATS headers to the handler', async () => {
    const seen = await requestContext.run({ requestId: 'req-42' }, () =>
      client.request(Probe.requestId, principal, {}),
    );
    expect(seen).toBe('req-42');
  });

  it('answers service_unavailable when nobody listens', async () => {
    const error = await client.request(Probe.nobody, principal, {}).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'service_unavailable' });
    // Nobody received it, so the admin CLI may send it again.
    expect(error).toBeInstanceOf(NoResponders);
  });

  it('tells the caller of a working subject that it is still at it until the answer', async () => {
    const inbox = `_INBOX.long_${randomUUID()}`;
    const received: Array<{ working: boolean; body: string }> = [];
    const done = new Promise<void>((resolve) => {
      nats.subscribe(inbox, {
        callback: (_error, message) => {
          received.push({ working: message.headers?.get(WORKING_HEADER) === '1', body: message.string() });
          if (!message.headers?.get(WORKING_HEADER)) resolve();
        },
      });
    });
    await nats.flush();
    nats.publish(Probe.long.name, JSON.stringify({ principal, data: {} }), { reply: inbox });
    await done;
    expect(received.at(-1)).toEqual({ working: false, body: JSON.stringify({ ok: true, data: 'finished' }) });
    expect(received.filter((message) => message.working).length).toBeGreaterThanOrEqual(1);
    // Nothing more once answered.
    await new Promise((resolve) => setTimeout(resolve, WORKING_INTERVAL_MS + 200));
    expect(received.filter((message) => !message.working)).toHaveLength(1);
    expect(received.at(-1)?.working).toBe(false);
  });

  it('sends again while nobody serves the subject, when asked to wait, and only then', async () => {
    let served = 0;
    const startServing = setTimeout(() => {
      const subscription = nats.subscribe(Probe.late.name, {
        callback: (_error, message) => {
          served += 1;
          message.respond(JSON.stringify({ ok: true, data: 'served late' }));
          subscription.unsubscribe();
        },
      });
    }, 500);
    try {
      await expect(client.requestWhenServed(Probe.late, principal, {}, { patienceMs: 10_000 })).resolves.toBe(
        'served late',
      );
      expect(served).toBe(1);
    } finally {
      clearTimeout(startServing);
    }

    const gaveUp = await client
      .requestWhenServed(Probe.nobody, principal, {}, { patienceMs: 300 })
      .catch((caught: unknown) => caught);
    expect(gaveUp).toBeInstanceOf(NoResponders);

    const aborted = new AbortController();
    setTimeout(() => aborted.abort(), 200);
    const began = Date.now();
    const stopped = await client
      .requestWhenServed(Probe.nobody, principal, {}, { patienceMs: 60_000, signal: aborted.signal })
      .catch((caught: unknown) => caught);
    expect(stopped).toBeInstanceOf(NoResponders);
    expect(Date.now() - began).toBeLessThan(5_000);

    // An answer saying nothing was carried out is as good as nobody answering; any other is final.
    await expect(
      client.requestWhenServed(Probe.passOn, principal, { id: 'unserved' }, { patienceMs: 10_000 }),
    ).resolves.toBe(3);
    await expect(
      client.requestWhenServed(Probe.passOn, principal, { id: 'maybe-applied' }, { patienceMs: 10_000 }),
    ).rejects.toMatchObject({ code: 'service_unavailable', message: 'not passed on' });
    // A read may be asked again whatever happened to it.
    await expect(
      client.requestWhenServed(
        Probe.passOn,
        principal,
        { id: 'a-read' },
        { patienceMs: 10_000, idempotent: true },
      ),
    ).resolves.toBe(3);

    // An answer, even a refusal, is never sent again.
    const refused = await client
      .requestWhenServed(Probe.fail, principal, {}, { patienceMs: 60_000 })
      .catch((caught: unknown) => caught);
    expect(refused).toMatchObject({ code: 'plan_limit_reached' });
  });
});

describe('the RPC server at start and shutdown', () => {
  const Slow = {
    wait: rpc(`${scope}.slow.wait`, EmptyRequest, { callers: ['gateway'], reply: returns<string>() }),
    ping: rpc(`${scope}.slow.ping`, EmptyRequest, { callers: ['gateway'], reply: returns<string>() }),
  };
  let entered: () => void;
  const handlerEntered = new Promise<void>((resolve) => (entered = resolve));
  let release: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));

  @Controller()
  class SlowHandler {
    @Handles(Slow.wait)
    async wait() {
      entered();
      await released;
      return 'done';
    }

    @Handles(Slow.ping)
    ping() {
      return 'pong';
    }
  }

  @Module({
    imports: [HealthModule],
    controllers: [ServiceHealthController, SlowHandler],
    providers: [{ provide: ReadinessChecks, useValue: new ReadinessChecks([]) }],
  })
  class SlowModule {}

  @Controller()
  class SecondEcho {
    @Handles(Probe.echo)
    echo({ id }: IdRequest, caller: Principal) {
      return { organizationId: caller.organizationId, id };
    }
  }

  @Module({ controllers: [ProbeHandler, SecondEcho] })
  class TwiceModule {}

  let nats: NatsConnection;
  let client: RpcClient;

  beforeAll(async () => {
    process.env.LOG_LEVEL = 'fatal';
    nats = await connectNats({ url: NATS_URL, identity: 'gateway' }, 'probe-client');
    client = new RpcClient(nats, 2_000);
  });

  afterAll(async () => {
    await nats?.close();
  });

  it('answers the requests it holds when the app closes, and takes no new ones', async () => {
    const app = await bootstrapService(SlowModule, {
      name: 'slow',
      queue: `${scope}.slow`,
      nats: endpoint,
      healthPort: 0,
    });
    const answer = client.request(Slow.wait, principal, {});
    await handlerEntered;
    const closing = app.close();
    // Once nothing answers any more, the server has stopped taking requests: only then may the held
    // one finish, so its answer can only come from a drain that waited for it.
    const deadline = Date.now() + 5_000;
    while (
      !((await client.request(Slow.ping, principal, {}).catch((e: unknown) => e)) instanceof NoResponders)
    ) {
      if (Date.now() > deadline) throw new Error('the server still takes requests while closing');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    release();
    await expect(answer).resolves.toBe('done');
    await closing;
  });

  it('refuses to start when two handlers serve one subject', async () => {
    const app = await NestFactory.createApplicationContext(TwiceModule, { logger: false });
    try {
      await expect(
        RpcServer.start(app, { name: 'twice', queue: `${scope}.twice`, nats: endpoint }),
      ).rejects.toThrow(/served twice: by ProbeHandler.echo and SecondEcho.echo/);
    } finally {
      await app.close();
    }
  });
});
