import {
  CatalogSubjects,
  JETSTREAM_CATALOG,
  NATS_IDENTITIES,
  type NatsIdentity,
  RunJobsStream,
  RunnerSubjects,
  WorkflowSubjects,
} from '#contracts';
import { connectAs, runningStack } from '#testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';

/**
 * The trust boundary between services: the stack's NATS server authenticates every connection and
 * lets each identity use only what the subject catalog grants it. Each refusal below is the server's,
 * before any service sees the message.
 */
const stack = runningStack();
const url = stack.env.NATS_URL ?? '';
const prefixed = (bare: string) => `${stack.env.NATS_SUBJECT_PREFIX}${bare}`;
const streamOf = (bare: string) =>
  `${(stack.env.NATS_SUBJECT_PREFIX ?? '').replace(/[^A-Za-z0-9_-]/g, '_')}${bare}`;

const PERMISSION_DENIED = /Permissions Violation/;

/** What the server answers a request to `subject` from `connection`: its refusal, or null if it let it through. */
async function refusalOf(connection: NatsConnection, subject: string, data = '{}'): Promise<string | null> {
  try {
    await connection.request(subject, data, { timeout: 2_000 });
    return null;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // A request the server let through but nobody answered is not a refusal.
    return PERMISSION_DENIED.test(message) ? message : null;
  }
}

describe('NATS identities and permissions', () => {
  const connections = new Map<NatsIdentity, NatsConnection>();
  const as = async (identity: NatsIdentity): Promise<NatsConnection> => {
    const existing = connections.get(identity);
    if (existing) return existing;
    const connection = await connectAs(stack, identity);
    connections.set(identity, connection);
    return connection;
  };

  afterAll(async () => {
    await Promise.all([...connections.values()].map((connection) => connection.close()));
  });

  it('refuses an anonymous connection and a wrong password', async () => {
    await expect(connect({ servers: url, reconnect: false })).rejects.toThrow(/Authorization Violation/);
    await expect(
      connect({ servers: url, user: 'gateway', pass: 'not-the-password', reconnect: false }),
    ).rejects.toThrow(/Authorization Violation/);
  });

  it('lets every identity connect with its own password', async () => {
    for (const identity of NATS_IDENTITIES) {
      const connection = await as(identity);
      await expect(connection.flush()).resolves.toBeUndefined();
    }
  });

  it("keeps the gateway from subscribing to a service's subjects", async () => {
    const gateway = await as('gateway');
    const subscription = gateway.subscribe(prefixed(CatalogSubjects.projectsGet.bare));
    await expect(subscription.closed).resolves.toMatchObject({
      message: expect.stringMatching(PERMISSION_DENIED),
    });
    const runs = gateway.subscribe(prefixed(RunnerSubjects.runsStart.bare));
    await expect(runs.closed).resolves.toMatchObject({ message: expect.stringMatching(PERMISSION_DENIED) });
  });

  it('lets only the admin identity use catalog.admin.*', async () => {
    const request = JSON.stringify({ principal: null, data: { name: 'Forged', plan: 'enterprise' } });
    for (const identity of NATS_IDENTITIES.filter((identity) => identity !== 'admin')) {
      await expect(
        refusalOf(await as(identity), prefixed(CatalogSubjects.adminOrgCreate.bare), request),
      ).resolves.toMatch(PERMISSION_DENIED);
    }
  });

  it("keeps the runner out of other services' subjects and streams", async () => {
    const runner = await as('runner');
    await expect(refusalOf(runner, prefixed(CatalogSubjects.adminKeyCreate.bare))).resolves.toMatch(
      PERMISSION_DENIED,
    );
    await expect(refusalOf(runner, prefixed(WorkflowSubjects.deleteForProject.bare))).resolves.toMatch(
      PERMISSION_DENIED,
    );
    for (const stream of JETSTREAM_CATALOG.filter(
      (entry) => entry.owner !== 'runner' && !entry.publishers.includes('runner'),
    )) {
      await expect(refusalOf(runner, prefixed(stream.bareSubject))).resolves.toMatch(PERMISSION_DENIED);
      await expect(refusalOf(runner, `$JS.API.STREAM.INFO.${streamOf(stream.bareStream)}`)).resolves.toMatch(
        PERMISSION_DENIED,
      );
    }
    // Even its own stream: the runner may use it, not delete it or read another consumer's view.
    await expect(
      refusalOf(runner, `$JS.API.STREAM.DELETE.${streamOf(RunJobsStream.bareStream)}`),
    ).resolves.toMatch(PERMISSION_DENIED);
    await expect(refusalOf(runner, '$JS.API.STREAM.CREATE.SOMEONE_ELSES')).resolves.toMatch(
      PERMISSION_DENIED,
    );
  });

  it("keeps every other identity out of the runner's stream", async () => {
    for (const identity of NATS_IDENTITIES.filter((identity) => identity !== 'runner')) {
      const connection = await as(identity);
      await expect(refusalOf(connection, prefixed(RunJobsStream.bareSubject))).resolves.toMatch(
        PERMISSION_DENIED,
      );
      await expect(
        refusalOf(
          connection,
          `$JS.API.CONSUMER.MSG.NEXT.${streamOf(RunJobsStream.bareStream)}.${RunJobsStream.consumer}`,
        ),
      ).resolves.toMatch(PERMISSION_DENIED);
    }
  });

  it('lets a service call only the peers it calls', async () => {
    const workflow = await as('workflow');
    // workflow asks catalog whether a project exists; it never asks for a project list or a billing page.
    await expect(refusalOf(workflow, prefixed(CatalogSubjects.projectsList.bare))).resolves.toMatch(
      PERMISSION_DENIED,
    );
    await expect(refusalOf(workflow, prefixed(CatalogSubjects.authResolve.bare))).resolves.toMatch(
      PERMISSION_DENIED,
    );
    const database = await as('database');
    await expect(refusalOf(database, prefixed(RunnerSubjects.runsStart.bare))).resolves.toMatch(
      PERMISSION_DENIED,
    );
  });
});
