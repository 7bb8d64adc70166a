import { randomBytes } from 'node:crypto';

import { type DomainException, loadConfig } from '#common';
import {
  type NotificationDeliveryDto,
  type Principal,
  type RunEndedRequest,
  servicePrincipal,
} from '#contracts';
import { dataSourceOptions, kyselyOn, migrate, newId } from '#persistence';
import { freePort, HttpTarget, scratchDatabase, waitFor } from '#testing';
import type { Kysely } from 'kysely';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';

import { ConnectionRepository } from '../connections/connection.repository.js';
import { ConnectionsService } from '../connections/connections.service.js';
import { CredentialCipher } from '../connections/credential-cipher.js';
import { EventsConfig } from '../events.config.js';
import { eventsDataSource } from '../events.data-source.js';
import type { DB } from '../events.tables.js';
import { AppProviders } from '../integrations/app-providers.js';
import { McpToolListRepository } from '../mcp/mcp-tool-list.repository.js';
import { OutboundHttp } from '../outbound/outbound-http.js';
import { NotificationDeliveryRepository } from './notification-delivery.repository.js';
import { NotificationDispatcher } from './notification-dispatcher.service.js';
import { NotificationEndpointRepository } from './notification-endpoint.repository.js';
import { NotificationEndpointsService } from './notification-endpoints.service.js';
import { NotificationSender } from './notification-sender.js';
import { RunNotificationsService } from './run-notifications.service.js';

/**
 * Notifications from a run's end to the endpoint's answer, against a real Postgres database of its own
 * and real local HTTP servers: signing, retries with backoff, giving up, and two processes claiming
 * the same due deliveries.
 */
const database = scratchDatabase('fm_events_notifications_spec');
const cipher = CredentialCipher.fromEnvironment(randomBytes(32).toString('base64'));
const logger = pino({ level: 'silent' });

interface Process {
  connections: ConnectionsService;
  endpoints: NotificationEndpointsService;
  notifications: RunNotificationsService;
  dispatcher: NotificationDispatcher;
  http: OutboundHttp;
}

describe('NotificationDispatcher', () => {
  let dataSource: DataSource;
  let db: Kysely<DB>;
  let target: HttpTarget;
  let processes: Process[] = [];
  const principal: Principal = servicePrincipal(`org-${newId()}`);

  /** One events process's notification parts, with retries 20 ms apart and three attempts. */
  function startProcess(env: Record<string, string> = {}): Process {
    const config = loadConfig(EventsConfig, {
      ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true',
      NOTIFICATIONS_RETRY_BASE_MS: '100',
      NOTIFICATIONS_RETRY_MAX_DELAY_MS: '200',
      NOTIFICATIONS_MAX_ATTEMPTS: '3',
      NOTIFICATIONS_TIMEOUT_MS: '2000',
      ...env,
    });
    const http = new OutboundHttp(config.ACTIONS_ALLOW_PRIVATE_NETWORKS, 64 * 1024);
    const connections = new ConnectionsService(
      new ConnectionRepository(db),
      new AppProviders(http, new McpToolListRepository(db)),
      cipher,
      logger,
    );
    const deliveries = new NotificationDeliveryRepository(db);
    const endpoints = new NotificationEndpointsService(
      new NotificationEndpointRepository(db),
      connections,
      cipher,
      http,
      config,
    );
    const dispatcher = new NotificationDispatcher(
      deliveries,
      endpoints,
      connections,
      new NotificationSender(http, config.NOTIFICATIONS_TIMEOUT_MS),
      config,
      logger,
    );
    const process = {
      connections,
      endpoints,
      notifications: new RunNotificationsService(deliveries, endpoints, dispatcher),
      dispatcher,
      http,
    };
    processes.push(process);
    return process;
  }

  beforeAll(async () => {
    await database.create();
    await migrate(eventsDataSource(database.url, cipher));
    dataSource = new DataSource(
      dataSourceOptions({ ...eventsDataSource(database.url, cipher), poolSize: 4 }),
    );
    await dataSource.initialize();
    db = kyselyOn<DB>(dataSource);
  });

  beforeEach(async () => {
    target = await HttpTarget.start();
  });

  afterEach(async () => {
    for (const process of processes) {
      await process.dispatcher.beforeApplicationShutdown();
      await process.http.close();
    }
    processes = [];
    await target.stop();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database.drop();
  });

  async function connection(process: Process, integrationId: 'http' | 'webhook' | 'slack', config = {}) {
    return (await process.connections.create(principal, { integrationId, name: integrationId, config })).id;
  }

  function ended(endpointId: string, overrides: Partial<RunEndedRequest> = {}): RunEndedRequest {
    return {
      runId: newId(),
      workflowId: newId(),
      version: 3,
      status: 'errored',
      error: 'step "charge" failed: The app answered 500',
      reply: null,
      startedAt: '2026-12-01T10:00:00.000Z',
      finishedAt: '2026-12-01T10:00:02.500Z',
      notifications: [{ endpointId, statuses: ['errored', 'terminated'] }],
      ...overrides,
    };
  }

  async function deliveriesOf(process: Process, endpointId: string): Promise<NotificationDeliveryDto[]> {
    return (await process.notifications.listDeliveries(principal, { id: endpointId, query: { limit: 100 } }))
      .data;
  }

  /** Ticks the dispatcher, as its timer would, until the endpoint's deliveries are all settled. */
  async function settle(process: Process, endpointId: string): Promise<NotificationDeliveryDto[]> {
    return waitFor(
      async () => {
        await process.dispatcher.dispatchDue();
        await process.dispatcher.settled();
        const deliveries = await deliveriesOf(process, endpointId);
        return deliveries.every((delivery) => delivery.status !== 'pending') ? deliveries : undefined;
      },
      { what: 'the deliveries to settle', intervalMs: 20 },
    );
  }

  it('POSTs the run once, signed with the endpoint’s own secret, and records the answer', async () => {
    const process = startProcess();
    const created = await process.endpoints.create(principal, {
      name: 'Pager',
      connectionId: await connection(process, 'webhook'),
      url: `${target.url}/hook`,
    });
    const run = ended(created.id, { reply: 'x'.repeat(5000) });
    expect(await process.notifications.runEnded(principal, run)).toEqual({ recorded: 1 });
    // The runner sends again until it hears the answer: nothing new.
    expect(await process.notifications.runEnded(principal, run)).toEqual({ recorded: 0 });

    const [delivery] = await settle(process, created.id);
    expect(delivery).toMatchObject({
      runId: run.runId,
      workflowId: run.workflowId,
      runStatus: 'errored',
      status: 'delivered',
      attempts: 1,
      lastResponseStatus: 200,
      lastError: null,
      nextAttemptAt: null,
      outcomes: [{ attempt: 1, responseStatus: 200, error: null, durationMs: expect.any(Number) }],
    });
    const [request] = target.requestsTo('/hook');
    expect(target.received).toHaveLength(1);
    expect(request!.headers['webhook-id']).toBe(delivery!.id);
    const headers = request!.headers as Record<string, string>;
    const body = new Webhook(created.secret).verify(request!.body, headers);
    expect(body).toEqual({
      type: 'run.errored',
      timestamp: run.finishedAt,
      data: {
        runId: run.runId,
        workflowId: run.workflowId,
        version: 3,
        status: 'errored',
        error: run.error,
        errorTruncated: false,
        reply: 'x'.repeat(4096),
        replyTruncated: true,
        startedAt: run.startedAt,
        finishedAt: run.finishedAt,
        links: { api: `/api/v1/runs/${run.runId}`, console: `/runs/${run.runId}` },
      },
    });
    // Another endpoint's secret does not verify it.
    const other = await process.endpoints.rotateSecret(principal, created.id);
    expect(() => new Webhook(other.secret).verify(request!.body, headers)).toThrow();
  });

  it('records nothing for a status the endpoint did not ask for, nor for an endpoint that is gone', async () => {
    const process = startProcess();
    const created = await process.endpoints.create(principal, {
      name: 'Errors only',
      connectionId: await connection(process, 'webhook'),
      url: `${target.url}/errors`,
    });
    const complete = ended(created.id, { status: 'complete', reply: 'done' });
    expect(await process.notifications.runEnded(principal, complete)).toEqual({ recorded: 0 });
    const gone = ended(newId(), { notifications: [{ endpointId: 'not-an-id', statuses: ['errored'] }] });
    expect(await process.notifications.runEnded(principal, gone)).toEqual({ recorded: 0 });
    const elsewhere = servicePrincipal(`org-${newId()}`);
    expect(await process.notifications.runEnded(elsewhere, ended(created.id))).toEqual({ recorded: 0 });
    await process.dispatcher.dispatchDue();
    await process.dispatcher.settled();
    expect(target.received).toEqual([]);
    expect(await deliveriesOf(process, created.id)).toEqual([]);
  });

  it('tries again with backoff while the endpoint is down, and delivers once it is back', async () => {
    const process = startProcess({ NOTIFICATIONS_MAX_ATTEMPTS: '5' });
    const port = await freePort();
    const created = await process.endpoints.create(principal, {
      name: 'Flaky',
      connectionId: await connection(process, 'webhook'),
      url: `http://127.0.0.1:${port}/flaky`,
    });
    await process.notifications.runEnded(principal, ended(created.id));
    // Nothing listens: the attempt is refused.
    const refused = await waitFor(
      async () => {
        await process.dispatcher.dispatchDue();
        await process.dispatcher.settled();
        const [delivery] = await deliveriesOf(process, created.id);
        return delivery?.attempts === 1 ? delivery : undefined;
      },
      { what: 'the first attempt' },
    );
    expect(refused).toMatchObject({
      status: 'pending',
      lastResponseStatus: null,
      lastError: expect.stringMatching(/The request failed: .*ECONNREFUSED/),
      nextAttemptAt: expect.any(String),
    });
    // Up again, but answering 503 once before it recovers.
    const back = await HttpTarget.start(port);
    try {
      back.respond('/flaky', { status: 503, body: { error: 'maintenance' } }, { status: 204 });
      const [delivery] = await settle(process, created.id);
      expect(delivery).toMatchObject({ status: 'delivered', attempts: 3, lastResponseStatus: 204 });
      expect(delivery!.outcomes.map((outcome) => [outcome.responseStatus, outcome.error])).toEqual([
        [null, expect.stringMatching(/ECONNREFUSED/)],
        [503, expect.stringMatching(/^The endpoint answered 503: .*maintenance/)],
        [204, null],
      ]);
      // The waits grew: the second attempt came at least the base (less 10 %) after the first.
      const [first, second, third] = delivery!.outcomes.map((outcome) => Date.parse(outcome.at));
      expect(second! - first!).toBeGreaterThanOrEqual(90);
      expect(third! - second!).toBeGreaterThanOrEqual(180);
      // Every attempt carried the same webhook-id and body, each signed anew.
      const requests = back.requestsTo('/flaky');
      expect(new Set(requests.map((request) => request.headers['webhook-id']))).toEqual(
        new Set([delivery!.id]),
      );
      expect(new Set(requests.map((request) => request.body)).size).toBe(1);
    } finally {
      await back.stop();
    }
  });

  it('gives up after the last attempt, and fails at once when the connection is deleted', async () => {
    const process = startProcess();
    target.respond('/down', { status: 500, body: 'no' });
    const connectionId = await connection(process, 'webhook');
    const down = await process.endpoints.create(principal, {
      name: 'Down',
      connectionId,
      url: `${target.url}/down`,
    });
    await process.notifications.runEnded(principal, ended(down.id));
    const [failed] = await settle(process, down.id);
    expect(failed).toMatchObject({
      status: 'failed',
      attempts: 3,
      lastResponseStatus: 500,
      nextAttemptAt: null,
    });
    expect(target.requestsTo('/down')).toHaveLength(3);

    const orphan = await process.endpoints.create(principal, {
      name: 'Orphan',
      connectionId: await connection(process, 'webhook'),
      url: `${target.url}/orphan`,
    });
    await process.connections.delete(principal, orphan.connectionId);
    await process.notifications.runEnded(principal, ended(orphan.id));
    const [dropped] = await settle(process, orphan.id);
    expect(dropped).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastError: expect.stringMatching(/connection was deleted/),
    });
    expect(target.requestsTo('/orphan')).toEqual([]);
  });

  it('lets two processes share the due deliveries, each sent exactly once', async () => {
    const [one, two] = [startProcess(), startProcess()];
    const created = await one!.endpoints.create(principal, {
      name: 'Busy',
      connectionId: await connection(one!, 'webhook'),
      url: `${target.url}/busy`,
    });
    target.respond('/busy', { delayMs: 20 });
    for (let run = 0; run < 40; run += 1) await one!.notifications.runEnded(principal, ended(created.id));
    const deliveries = await waitFor(
      async () => {
        await Promise.all([one!.dispatcher.dispatchDue(), two!.dispatcher.dispatchDue()]);
        await Promise.all([one!.dispatcher.settled(), two!.dispatcher.settled()]);
        const all = await deliveriesOf(one!, created.id);
        return all.every((delivery) => delivery.status === 'delivered') ? all : undefined;
      },
      { what: 'every delivery' },
    );
    expect(deliveries).toHaveLength(40);
    expect(deliveries.every((delivery) => delivery.attempts === 1)).toBe(true);
    const ids = target.requestsTo('/busy').map((request) => request.headers['webhook-id']);
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
  });

  it('claims again a delivery whose attempt was lost with its process, once its claim has expired', async () => {
    const process = startProcess();
    const created = await process.endpoints.create(principal, {
      name: 'Lost',
      connectionId: await connection(process, 'webhook'),
      url: `${target.url}/lost`,
    });
    await process.notifications.runEnded(principal, ended(created.id));
    const repository = new NotificationDeliveryRepository(db);
    // A process claims it and dies before recording anything.
    const [lost] = await repository.claimDue(10, 100, 3);
    expect(lost).toMatchObject({ attempt: 1 });
    expect(await repository.claimDue(10, 100, 3)).toEqual([]);
    const [delivery] = await settle(process, created.id);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(delivery!.outcomes).toEqual([expect.objectContaining({ attempt: 2, responseStatus: 200 })]);
    // The lost attempt's late outcome, had it come, is not recorded over the delivery's.
    const late = { status: 'failed' as const, nextAttemptAt: null, outcome: delivery!.outcomes[0]! };
    expect(await repository.recordAttempt(lost!, late)).toBe(false);
  });

  it('takes only https URLs on public addresses, through an http or webhook connection of the organization', async () => {
    const strict = startProcess({ ACTIONS_ALLOW_PRIVATE_NETWORKS: 'false' });
    const webhook = await connection(strict, 'webhook');
    const slack = await connection(strict, 'slack', { webhookUrl: 'https://hooks.slack.com/services/x' });
    const api = await connection(strict, 'http', {
      headers: { authorization: 'Bearer token' },
      allowedOrigins: ['https://api.example.com'],
    });
    const refusal = async (connectionId: string, url: string) => {
      try {
        await strict.endpoints.create(principal, { name: 'Refused', connectionId, url });
      } catch (error) {
        const { code, details } = error as DomainException;
        return { code, issue: (details?.issues as unknown[])[0] };
      }
      return undefined;
    };
    const issue = (path: string, message: RegExp) => ({
      code: 'invalid_request',
      issue: { path, message: expect.stringMatching(message) },
    });
    expect(await refusal(webhook, 'http://alerts.example.com/x')).toEqual(issue('url', /must be https/));
    expect(await refusal(webhook, 'https://127.0.0.1/x')).toEqual(issue('url', /private address/));
    expect(await refusal(webhook, 'https://[::ffff:10.0.0.1]/x')).toEqual(issue('url', /private address/));
    expect(await refusal(webhook, 'https://user:pw@alerts.example.com/')).toEqual(
      issue('url', /credentials/),
    );
    expect(await refusal(slack, 'https://alerts.example.com/x')).toEqual(
      issue('connectionId', /http or webhook connection/),
    );
    expect(await refusal(newId(), 'https://alerts.example.com/x')).toEqual(
      issue('connectionId', /No connection/),
    );
    expect(await refusal(api, 'https://alerts.example.com/x')).toEqual(
      issue('url', /headers go only to https:\/\/api\.example\.com/),
    );
    const made = await strict.endpoints.create(principal, {
      name: 'API',
      connectionId: api,
      url: 'https://api.example.com/alerts',
    });
    expect(made).toMatchObject({
      url: 'https://api.example.com/alerts',
      secret: expect.stringMatching(/^whsec_/),
    });
    // Another organization sees none of it.
    const stranger = servicePrincipal(`org-${newId()}`);
    await expect(strict.endpoints.get(stranger, made.id)).rejects.toMatchObject({
      code: 'notification_endpoint_not_found',
    });
    expect(await strict.endpoints.existing(stranger, [made.id])).toEqual([]);
    expect(await strict.endpoints.existing(principal, [made.id, 'nope'])).toEqual([made.id]);
  });

  it('sends an http connection’s headers with each delivery to an allowed origin', async () => {
    const process = startProcess();
    const created = await process.endpoints.create(principal, {
      name: 'With token',
      connectionId: await connection(process, 'http', {
        headers: { authorization: 'Bearer t0ken' },
        allowedOrigins: [target.url],
      }),
      url: `${target.url}/authed`,
    });
    await process.notifications.runEnded(principal, ended(created.id));
    await settle(process, created.id);
    expect(target.requestsTo('/authed').map((request) => request.headers.authorization)).toEqual([
      'Bearer t0ken',
    ]);
  });
});
