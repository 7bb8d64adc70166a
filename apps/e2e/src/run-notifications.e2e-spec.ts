import { randomUUID } from 'node:crypto';

import {
  chainOf,
  createConnection,
  createNotificationEndpoint,
  createOrganization,
  createProject,
  createWorkflow,
  deliveriesOf,
  type ErrorBody,
  expectData,
  freePort,
  HttpTarget,
  type NotificationDelivery,
  nodes,
  type OrganizationFixture,
  runningStack,
  runReaches,
  runToEnd,
  startRun,
  type TestDiagram,
  TestStack,
  waitFor,
} from '#testing';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';

const stack = runningStack();

/**
 * Run notifications (docs/notifications.md) through the real services: a run's end reaches the
 * runner's outbox, the events service records a delivery per endpoint that asked for the status, and
 * POSTs it signed with the endpoint's own secret, again and again while the endpoint is down.
 * The stack retries notifications 300 ms apart, doubling to 1.5 s (global-setup.ts).
 */
describe('run notifications', () => {
  let org: OrganizationFixture;
  let projectId: string;
  let app: HttpTarget;
  let receiver: HttpTarget;
  /** The connection notifications go through, and the one the workflows' actions call the app with. */
  let hookConnection: string;
  let httpConnection: string;

  beforeAll(async () => {
    org = await createOrganization(stack);
    projectId = await createProject(org.api, 'Notified');
    [app, receiver] = await Promise.all([HttpTarget.start(), HttpTarget.start()]);
    app.respond('/fail', { status: 500, body: { error: 'the app is broken' } });
    [hookConnection, httpConnection] = (
      await Promise.all([
        createConnection(stack, org.organizationId, 'webhook'),
        createConnection(stack, org.organizationId, 'http'),
      ])
    ).map((connection) => connection.connectionId) as [string, string];
  });

  afterAll(async () => {
    await Promise.all([app?.stop(), receiver?.stop()]);
  });

  /** One action calling the app at `path`: it errors when the app answers 500, completes otherwise. */
  const callingApp = (
    path: string,
    notifications: NonNullable<TestDiagram['settings']>['notifications'],
  ) => ({
    ...chainOf(
      nodes.trigger('t'),
      nodes.httpCall('call', `${app.url}${path}`, { connectionId: httpConnection }),
    ),
    settings: { notifications },
  });

  /** Waits until the run's delivery to the endpoint has settled as `status`, and answers it. */
  const settledDelivery = (endpointId: string, runId: string, status: NotificationDelivery['status']) =>
    waitFor(
      async () => {
        const [delivery] = await deliveriesOf(org.api, endpointId, runId);
        return delivery?.status === status ? delivery : undefined;
      },
      { what: `the delivery of run ${runId} to be ${status}`, timeoutMs: 30_000 },
    );

  it('tells an endpoint that a run errored, signed with the endpoint’s own secret', async () => {
    const endpoint = await createNotificationEndpoint(org.api, hookConnection, `${receiver.url}/errors`);
    expect(endpoint).toMatchObject({
      connectionId: hookConnection,
      secret: expect.stringMatching(/^whsec_/),
    });
    const workflowId = await createWorkflow(
      org.api,
      projectId,
      callingApp('/fail', [{ endpointId: endpoint.id, statuses: ['errored', 'terminated'] }]),
    );
    const run = await runToEnd(org.api, workflowId, { input: '{}' });
    expect(run.status).toBe('errored');

    const delivery = await settledDelivery(endpoint.id, run.id, 'delivered');
    expect(delivery).toMatchObject({
      runId: run.id,
      workflowId,
      runStatus: 'errored',
      attempts: 1,
      lastResponseStatus: 200,
      lastError: null,
      nextAttemptAt: null,
      outcomes: [{ attempt: 1, responseStatus: 200, error: null }],
    });
    const requests = receiver.requestsTo('/errors');
    expect(requests).toHaveLength(1);
    const [request] = requests;
    const headers = request!.headers as Record<string, string>;
    expect(headers['webhook-id']).toBe(delivery.id);
    expect(headers['content-type']).toBe('application/json');
    // What a receiver does with the secret it was given: verify, then read.
    expect(new Webhook(endpoint.secret).verify(request!.body, headers)).toEqual({
      type: 'run.errored',
      timestamp: expect.any(String),
      data: {
        runId: run.id,
        workflowId,
        version: 1,
        status: 'errored',
        error: run.error,
        errorTruncated: false,
        reply: null,
        replyTruncated: false,
        startedAt: expect.any(String),
        finishedAt: expect.any(String),
        links: { api: `/api/v1/runs/${run.id}`, console: `/runs/${run.id}` },
      },
    });
    const forged = `whsec_${Buffer.from(randomUUID()).toString('base64')}`;
    expect(() => new Webhook(forged).verify(request!.body, headers)).toThrow();
  });

  it('sends nothing for a status the endpoint did not ask for', async () => {
    const errorsOnly = await createNotificationEndpoint(
      org.api,
      hookConnection,
      `${receiver.url}/errors-only`,
    );
    // A witness: told of the same run's end in the same step, so once it has its delivery the other
    // endpoint would have had one too.
    const witness = await createNotificationEndpoint(org.api, hookConnection, `${receiver.url}/witness`);
    const workflowId = await createWorkflow(
      org.api,
      projectId,
      callingApp('/ok', [
        { endpointId: errorsOnly.id, statuses: ['errored'] },
        { endpointId: witness.id, statuses: ['complete'] },
      ]),
    );
    const run = await runToEnd(org.api, workflowId, { input: '{}' });
    expect(run.status).toBe('complete');
    await settledDelivery(witness.id, run.id, 'delivered');
    expect(await deliveriesOf(org.api, errorsOnly.id)).toEqual([]);
    expect(receiver.requestsTo('/errors-only')).toEqual([]);
    const [told] = receiver.requestsTo('/witness');
    expect(JSON.parse(told!.body)).toMatchObject({
      type: 'run.complete',
      data: { runId: run.id, status: 'complete', reply: expect.any(String), error: null },
    });
  });

  it('tells of a cancelled run as terminated, with the reason it was cancelled', async () => {
    const endpoint = await createNotificationEndpoint(org.api, hookConnection, `${receiver.url}/cancelled`);
    const workflowId = await createWorkflow(org.api, projectId, {
      ...chainOf(nodes.trigger('t'), nodes.delay('wait', 3600)),
      settings: { notifications: [{ endpointId: endpoint.id, statuses: ['terminated'] }] },
    });
    const started = expectData(await startRun(org.api, workflowId, { input: '{}' }), 201);
    await runReaches(org.api, started.id, ['waiting']);
    const cancelled = await org.api.POST('/api/v1/runs/{id}/cancel', {
      params: { path: { id: started.id } },
      body: { reason: 'not today' },
    });
    expect(cancelled.response.status).toBe(200);
    await settledDelivery(endpoint.id, started.id, 'delivered');
    const [told] = receiver.requestsTo('/cancelled');
    expect(JSON.parse(told!.body)).toMatchObject({
      type: 'run.terminated',
      data: { runId: started.id, status: 'terminated', error: expect.stringContaining('not today') },
    });
  });

  it('keeps trying an endpoint that is down, and delivers once it is back, each attempt readable', async () => {
    const port = await freePort();
    const endpoint = await createNotificationEndpoint(
      org.api,
      hookConnection,
      `http://127.0.0.1:${port}/late`,
    );
    const workflowId = await createWorkflow(
      org.api,
      projectId,
      callingApp('/fail', [{ endpointId: endpoint.id, statuses: ['errored'] }]),
    );
    const run = await runToEnd(org.api, workflowId, { input: '{}' });
    expect(run.status).toBe('errored');

    // Nothing listens there: attempts are refused, and the delivery waits for the next one.
    const refused = await waitFor(
      async () => {
        const [delivery] = await deliveriesOf(org.api, endpoint.id, run.id);
        return delivery && delivery.attempts >= 2 ? delivery : undefined;
      },
      { what: 'two refused attempts', timeoutMs: 30_000 },
    );
    expect(refused).toMatchObject({
      status: 'pending',
      lastResponseStatus: null,
      lastError: expect.stringMatching(/ECONNREFUSED/),
      nextAttemptAt: expect.any(String),
    });
    // `status=pending` finds it among the endpoint's deliveries.
    const pending = await org.api.GET('/api/v1/notification-endpoints/{id}/deliveries', {
      params: { path: { id: endpoint.id }, query: { status: 'pending' } },
    });
    expect(expectData(pending, 200).data.map((delivery) => delivery.id)).toEqual([refused.id]);

    // Back, in maintenance for one more attempt, then well.
    const back = await HttpTarget.start(port);
    try {
      back.respond('/late', { status: 503, body: { error: 'maintenance' } }, { status: 200 });
      const delivered = await settledDelivery(endpoint.id, run.id, 'delivered');
      const outcomes = delivered.outcomes.map((outcome) => outcome.responseStatus);
      expect(outcomes.slice(-2)).toEqual([503, 200]);
      expect(outcomes.slice(0, -2).every((status) => status === null)).toBe(true);
      expect(delivered.attempts).toBe(delivered.outcomes.length);
      expect(delivered.outcomes.map((outcome) => outcome.attempt)).toEqual(
        delivered.outcomes.map((_, index) => index + 1),
      );
      const [last] = back.requestsTo('/late').slice(-1);
      expect(() =>
        new Webhook(endpoint.secret).verify(last!.body, last!.headers as Record<string, string>),
      ).not.toThrow();
      expect(new Set(back.requestsTo('/late').map((request) => request.headers['webhook-id']))).toEqual(
        new Set([delivered.id]),
      );
    } finally {
      await back.stop();
    }
  });

  it('refuses to publish settings naming an endpoint the organization does not have', async () => {
    const other = await createOrganization(stack);
    const theirs = await createNotificationEndpoint(
      other.api,
      (await createConnection(stack, other.organizationId, 'webhook')).connectionId,
      `${receiver.url}/theirs`,
    );
    const unknown = randomUUID();
    const draft = await org.api.POST('/api/v1/projects/{projectId}/workflows', {
      params: { path: { projectId } },
      body: {
        name: 'Names strangers',
        diagram: callingApp('/ok', [
          { endpointId: theirs.id, statuses: ['errored'] },
          { endpointId: unknown, statuses: ['complete'] },
        ]),
      },
    });
    const published = await org.api.POST('/api/v1/workflows/{id}/publish', {
      params: { path: { id: expectData(draft, 201).id } },
    });
    expect(published.response.status).toBe(400);
    expect((published.error as ErrorBody).error).toMatchObject({
      code: 'invalid_workflow',
      details: {
        issues: [
          { path: 'settings.notifications.0.endpointId', message: expect.stringContaining(theirs.id) },
          { path: 'settings.notifications.1.endpointId', message: expect.stringContaining(unknown) },
        ],
      },
    });
    // And the schema's bounds: a status that is not final, too many endpoints.
    const tooMany = Array.from({ length: 11 }, () => ({
      endpointId: unknown,
      statuses: ['errored' as const],
    }));
    for (const notifications of [[{ endpointId: unknown, statuses: ['running'] }], tooMany]) {
      const refused = await org.api.POST('/api/v1/projects/{projectId}/workflows', {
        params: { path: { projectId } },
        body: { name: 'Bad settings', diagram: callingApp('/ok', notifications as never) },
      });
      const answer = await org.api.POST('/api/v1/workflows/{id}/publish', {
        params: { path: { id: expectData(refused, 201).id } },
      });
      expect({ status: answer.response.status, code: (answer.error as ErrorBody).error.code }).toEqual({
        status: 400,
        code: 'invalid_workflow',
      });
    }
  });

  it('lists, reads, rotates and deletes endpoints, and refuses what it cannot send to', async () => {
    const endpoint = await createNotificationEndpoint(
      org.api,
      hookConnection,
      `${receiver.url}/crud`,
      'Crud',
    );
    const id = { params: { path: { id: endpoint.id } } };
    const listed = await org.api.listAll('/api/v1/notification-endpoints');
    expect(listed.map((item) => item.id)).toContain(endpoint.id);
    expect(JSON.stringify(listed)).not.toContain('whsec_');
    const read = expectData(await org.api.GET('/api/v1/notification-endpoints/{id}', id), 200);
    expect(read).toEqual({
      id: endpoint.id,
      name: 'Crud',
      connectionId: hookConnection,
      url: `${receiver.url}/crud`,
      createdAt: endpoint.createdAt,
    });
    const rotated = expectData(await org.api.POST('/api/v1/notification-endpoints/{id}/secret', id), 201);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);

    const refusal = async (body: { name: string; connectionId: string; url: string }) => {
      const answer = await org.api.POST('/api/v1/notification-endpoints', { body });
      return [answer.response.status, (answer.error as ErrorBody | undefined)?.error.details?.issues];
    };
    const slack = await createConnection(stack, org.organizationId, 'slack', {
      config: { webhookUrl: 'https://hooks.slack.com/services/T/B/x' },
    });
    expect(await refusal({ name: 'x', connectionId: slack.connectionId, url: `${receiver.url}/x` })).toEqual([
      400,
      [{ path: 'connectionId', message: expect.stringMatching(/http or webhook/) }],
    ]);
    expect(await refusal({ name: 'x', connectionId: randomUUID(), url: `${receiver.url}/x` })).toEqual([
      400,
      [{ path: 'connectionId', message: expect.stringMatching(/No connection/) }],
    ]);
    expect(await refusal({ name: 'x', connectionId: hookConnection, url: 'ftp://example.com/x' })).toEqual([
      400,
      [{ path: 'url', message: expect.stringMatching(/http or https/) }],
    ]);

    expect(expectData(await org.api.DELETE('/api/v1/notification-endpoints/{id}', id), 200)).toEqual({
      deleted: true,
    });
    for (const answer of [
      await org.api.GET('/api/v1/notification-endpoints/{id}', id),
      await org.api.GET('/api/v1/notification-endpoints/{id}/deliveries', id),
      await org.api.DELETE('/api/v1/notification-endpoints/{id}', id),
    ]) {
      expect([answer.response.status, (answer.error as ErrorBody).error.code]).toEqual([
        404,
        'notification_endpoint_not_found',
      ]);
    }
  });

  it('tells the endpoint of each run once', async () => {
    const endpoint = await createNotificationEndpoint(org.api, hookConnection, `${receiver.url}/once`);
    const workflowId = await createWorkflow(
      org.api,
      projectId,
      callingApp('/fail', [{ endpointId: endpoint.id, statuses: ['errored'] }]),
    );
    const runs = await Promise.all([1, 2, 3].map(() => runToEnd(org.api, workflowId, { input: '{}' })));
    await Promise.all(runs.map((run) => settledDelivery(endpoint.id, run.id, 'delivered')));
    const ids = receiver.requestsTo('/once').map((request) => request.headers['webhook-id']);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
  });
});

/**
 * The events service killed (SIGKILL) with a delivery in flight, and down when a run ends: on a stack
 * of its own whose services are separate processes, with attempts of at most 1 s (so a claim lost
 * with its process expires after 2 s).
 */
describe('run notifications: the events service crashes', () => {
  let separate: TestStack;
  let org: OrganizationFixture;
  let projectId: string;
  let app: HttpTarget;
  let receiver: HttpTarget;
  let hookConnection: string;
  let httpConnection: string;

  beforeAll(async () => {
    separate = await TestStack.start(
      {
        ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true',
        NOTIFICATIONS_TIMEOUT_MS: '1000',
        NOTIFICATIONS_RETRY_BASE_MS: '200',
        NOTIFICATIONS_RETRY_MAX_DELAY_MS: '1000',
      },
      { services: ['catalog', 'workflow', 'runner', 'events'] },
    );
    org = await createOrganization(separate.description);
    projectId = await createProject(org.api, 'Crashes');
    [app, receiver] = await Promise.all([HttpTarget.start(), HttpTarget.start()]);
    app.respond('/fail', { status: 500 });
    [hookConnection, httpConnection] = (
      await Promise.all([
        createConnection(separate.description, org.organizationId, 'webhook'),
        createConnection(separate.description, org.organizationId, 'http'),
      ])
    ).map((connection) => connection.connectionId) as [string, string];
  }, 180_000);

  afterAll(async () => {
    await Promise.all([app?.stop(), receiver?.stop()]);
    await separate?.stop();
  });

  async function failingWorkflow(path: string) {
    const endpoint = await createNotificationEndpoint(org.api, hookConnection, `${receiver.url}${path}`);
    const workflowId = await createWorkflow(org.api, projectId, {
      ...chainOf(
        nodes.trigger('t'),
        nodes.httpCall('call', `${app.url}/fail`, { connectionId: httpConnection }),
      ),
      settings: { notifications: [{ endpointId: endpoint.id, statuses: ['errored'] }] },
    });
    return { endpoint, workflowId };
  }

  const delivered = (endpointId: string, runId: string) =>
    waitFor(
      async () => {
        const [delivery] = await deliveriesOf(org.api, endpointId, runId);
        return delivery?.status === 'delivered' ? delivery : undefined;
      },
      { what: `run ${runId}'s delivery`, timeoutMs: 60_000, intervalMs: 200 },
    );

  it('makes again an attempt that was in flight when events was killed', async () => {
    const { endpoint, workflowId } = await failingWorkflow('/held');
    // The endpoint holds the first attempt: it is in flight when events dies.
    const held = receiver.hold('/held');
    const run = await runToEnd(org.api, workflowId, { input: '{}' });
    await waitFor(() => (receiver.requestsTo('/held').length === 1 ? true : undefined), {
      what: 'the first attempt to reach the endpoint',
    });
    await separate.processes.get('events')!.kill('SIGKILL');
    receiver.respond('/held', { status: 200 });
    held.release();
    await separate.startService('events');

    const delivery = await delivered(endpoint.id, run.id);
    // The first attempt counts, though its outcome went with the process.
    expect(delivery).toMatchObject({ attempts: 2, outcomes: [{ attempt: 2, responseStatus: 200 }] });
    const ids = receiver.requestsTo('/held').map((request) => request.headers['webhook-id']);
    expect(ids).toEqual([delivery.id, delivery.id]);
  });

  it('records the delivery once events is back when it was down as the run ended', async () => {
    // A run that ends with no action step, which events would have to serve: it is cancelled.
    const endpoint = await createNotificationEndpoint(org.api, hookConnection, `${receiver.url}/later`);
    const workflowId = await createWorkflow(org.api, projectId, {
      ...chainOf(nodes.trigger('t'), nodes.delay('wait', 3600)),
      settings: { notifications: [{ endpointId: endpoint.id, statuses: ['terminated'] }] },
    });
    const started = expectData(await startRun(org.api, workflowId, { input: '{}' }), 201);
    await runReaches(org.api, started.id, ['waiting']);
    await separate.processes.get('events')!.kill('SIGKILL');
    const cancelled = await org.api.POST('/api/v1/runs/{id}/cancel', {
      params: { path: { id: started.id } },
      body: { reason: 'while events is down' },
    });
    expect(cancelled.response.status).toBe(200);
    // The runner's outbox row of the run's end stays, its handler failing, until events answers.
    const db = new pg.Client({ connectionString: separate.env.DATABASE_URL });
    await db.connect();
    try {
      const failed = await waitFor(
        async () => {
          const { rows } = await db.query<{ last_error: string | null }>(
            'SELECT last_error FROM runner.run_endings WHERE run_id = $1',
            [started.id],
          );
          return rows[0]?.last_error ?? undefined;
        },
        { what: 'the run-ending handler to fail while events is down', timeoutMs: 30_000 },
      );
      expect(failed).toMatch(/^notifications: /);
    } finally {
      await db.end();
    }
    await separate.startService('events');
    const delivery = await delivered(endpoint.id, started.id);
    expect(delivery).toMatchObject({ runStatus: 'terminated', attempts: 1 });
    expect(receiver.requestsTo('/later')).toHaveLength(1);
  });
});
