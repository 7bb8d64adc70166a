import type { ConnectionDto, CreatedConnectionDto, SendingSecretDto } from '#contracts';
import {
  adminCli,
  type ApiClient,
  chainOf,
  createConnection,
  createMember,
  createOrganization,
  createProject,
  createWorkflow,
  deliver,
  type ErrorBody,
  eventsOf,
  expectData,
  finished,
  getWorkflow,
  HttpTarget,
  nodes,
  type OrganizationFixture,
  publishWorkflow,
  runningStack,
  runsOf,
  runToEnd,
  type Schemas,
  signedDelivery,
  startRun,
  statusOf,
  stepOf,
  type TestDiagram,
  waitFor,
} from '#testing';
import { randomUUID } from 'node:crypto';

import pg from 'pg';
import { Webhook } from 'standardwebhooks';

/**
 * Apps and events through the HTTP API, as a member and as an app would use them: webhook
 * deliveries into workflows, their outcomes and replays, subscriptions at publish, pause and resume,
 * and app actions against a real local HTTP server (the stack allows private networks for it).
 */
const stack = runningStack();

type Outcome = Schemas['OutcomeDto'];

/** Runs started by events may wait behind a fan-out: a little longer than the default. */
const RUN_WAIT = { timeoutMs: 20_000 };

describe('apps and events', () => {
  let org: OrganizationFixture;
  let projectId: string;
  let hook: { connectionId: string; secret: string };
  let db: pg.Client;

  /** Waits until the workflow has the event of `marker` with an outcome for every trigger named. */
  async function outcomesOf(
    api: ApiClient,
    workflowId: string,
    marker: string,
    triggers: string[],
  ): Promise<Outcome[]> {
    return waitFor(
      async () => {
        const event = (await eventsOf(api, workflowId)).find((candidate) =>
          candidate.preview.includes(marker),
        );
        const outcomes = event?.outcomes ?? [];
        return triggers.every((trigger) => outcomes.some((outcome) => outcome.triggerNodeId === trigger))
          ? outcomes
          : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 100, what: `outcomes of ${marker} for ${triggers.join(', ')}` },
    );
  }

  const send = (
    connectionId: string,
    secret: string,
    payload: unknown,
    options?: { id?: string; at?: Date },
  ) => deliver(stack.baseUrl, connectionId, signedDelivery(secret, payload, options));

  beforeAll(async () => {
    org = await createOrganization(stack);
    projectId = await createProject(org.api, 'Events');
    const created = await createConnection(stack, org.organizationId, 'webhook');
    expect(created.secret).toMatch(/^whsec_/);
    hook = { connectionId: created.connectionId, secret: created.secret! };
    db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
  });

  describe('webhook ingress', () => {
    it('refuses unsigned, badly signed and stale deliveries and unknown connections, and stores nothing', async () => {
      const workflowId = await createWorkflow(org.api, projectId, {
        nodes: [nodes.webhook('hook', hook.connectionId)],
        edges: [],
      });
      const good = signedDelivery(hook.secret, { marker: 'refused-1' });
      const cases = [
        { ...good, headers: { 'content-type': 'application/json' } },
        {
          ...good,
          headers: {
            ...good.headers,
            'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
          },
        },
        { ...good, body: JSON.stringify({ marker: 'refused-1', tampered: true }) },
        signedDelivery('whsec_' + Buffer.from('another secret of 32 bytes ....').toString('base64'), {
          marker: 'refused-1',
        }),
        signedDelivery(hook.secret, { marker: 'refused-1' }, { at: new Date(Date.now() - 10 * 60_000) }),
      ];
      for (const delivery of cases) {
        const answer = await deliver(stack.baseUrl, hook.connectionId, delivery);
        expect({ status: answer.status, code: answer.body?.error?.code }).toEqual({
          status: 401,
          code: 'unauthorized',
        });
      }
      for (const connectionId of ['01900000-0000-7000-8000-000000000000', 'not-an-id']) {
        expect((await deliver(stack.baseUrl, connectionId, good)).status).toBe(401);
      }
      // A delivery that is accepted afterwards is the only event: nothing refused was kept.
      expect((await send(hook.connectionId, hook.secret, { marker: 'refused-2' })).status).toBe(202);
      await outcomesOf(org.api, workflowId, 'refused-2', ['hook']);
      const events = await eventsOf(org.api, workflowId);
      expect(events.map((event) => JSON.parse(event.preview).marker)).toEqual(['refused-2']);
    });

    it('stores a delivery before answering 202, starts one event run, and starts nothing for a redelivery', async () => {
      const workflowId = await createWorkflow(
        org.api,
        projectId,
        chainOf(nodes.webhook('hook', hook.connectionId), nodes.alwaysTrue('c')),
      );
      const payload = { marker: 'once', customer: { name: 'Ada' } };
      const delivery = signedDelivery(hook.secret, payload);
      const accepted = await deliver(stack.baseUrl, hook.connectionId, delivery);
      expect(accepted).toEqual({ status: 202, body: { received: true } });

      const [outcome] = await outcomesOf(org.api, workflowId, 'once', ['hook']);
      expect(outcome).toMatchObject({ triggerNodeId: 'hook', outcome: 'started', error: null });
      const run = await finished(org.api, outcome!.runId!, RUN_WAIT);
      expect(run).toMatchObject({ trigger: 'event', triggerNodeId: 'hook', status: 'complete', version: 1 });
      expect(JSON.parse(run.input)).toEqual(payload);

      expect(await deliver(stack.baseUrl, hook.connectionId, delivery)).toMatchObject({ status: 202 });
      const [event, ...others] = await eventsOf(org.api, workflowId);
      expect(others).toEqual([]);
      expect(event).toMatchObject({
        triggerId: 'webhook/received',
        preview: delivery.body.slice(0, 300),
        outcomes: [expect.objectContaining({ outcome: 'started', runId: outcome!.runId })],
      });
      expect(Date.parse(event.firedAt)).toBeLessThanOrEqual(Date.parse(event.receivedAt));
      expect(await runsOf(org.api, workflowId)).toHaveLength(1);
    });

    it('runs a delivery whose JSON holds the NUL character, which Postgres cannot store in JSON', async () => {
      const workflowId = await createWorkflow(
        org.api,
        projectId,
        chainOf(nodes.webhook('hook', hook.connectionId, { marker: 'nul' }), nodes.alwaysTrue('c')),
      );
      const payload = { marker: 'nul', text: 'before\u0000after' };
      expect(await send(hook.connectionId, hook.secret, payload)).toMatchObject({ status: 202 });
      const [outcome] = await outcomesOf(org.api, workflowId, 'nul', ['hook']);
      expect(outcome).toMatchObject({ outcome: 'started', error: null });
      const run = await finished(org.api, outcome!.runId!, RUN_WAIT);
      expect(run.status).toBe('complete');
      expect(JSON.parse(run.input)).toEqual(payload);
    });

    it('previews the first 300 characters of the payload', async () => {
      const workflowId = await createWorkflow(org.api, projectId, {
        nodes: [nodes.webhook('hook', hook.connectionId)],
        edges: [],
      });
      const delivery = signedDelivery(hook.secret, { marker: 'long', text: 'x'.repeat(1_000) });
      expect((await deliver(stack.baseUrl, hook.connectionId, delivery)).status).toBe(202);
      await outcomesOf(org.api, workflowId, 'long', ['hook']);
      const [event] = await eventsOf(org.api, workflowId);
      expect(event.preview).toBe(delivery.body.slice(0, 300));
    });

    it('delivers to the triggers whose filter matches', async () => {
      const workflowId = await createWorkflow(org.api, projectId, {
        nodes: [
          nodes.webhook('orders', hook.connectionId, { type: 'order', 'order.paid': true }),
          nodes.webhook('refunds', hook.connectionId, { type: 'refund' }),
          nodes.webhook('all', hook.connectionId),
        ],
        edges: [],
      });
      await send(hook.connectionId, hook.secret, {
        marker: 'filter-order',
        type: 'order',
        order: { paid: true },
      });
      await send(hook.connectionId, hook.secret, {
        marker: 'filter-unpaid',
        type: 'order',
        order: { paid: false },
      });
      const paid = await outcomesOf(org.api, workflowId, 'filter-order', ['orders', 'all']);
      const unpaid = await outcomesOf(org.api, workflowId, 'filter-unpaid', ['all']);
      expect(paid.map((outcome) => outcome.triggerNodeId).sort()).toEqual(['all', 'orders']);
      expect(unpaid.map((outcome) => outcome.triggerNodeId)).toEqual(['all']);
    });

    it('records error for an event that cannot start a run, and limit_reached when monthly runs are used up', async () => {
      const workflowId = await createWorkflow(org.api, projectId, {
        nodes: [nodes.webhook('hook', hook.connectionId)],
        edges: [],
      });
      // Over the run input limit, within the delivery limit.
      await send(hook.connectionId, hook.secret, { marker: 'too-long', text: 'x'.repeat(100_001) });
      const [failed] = await outcomesOf(org.api, workflowId, 'too-long', ['hook']);
      expect(failed).toMatchObject({ outcome: 'error', runId: null, error: expect.stringMatching(/input/) });

      const free = await createOrganization(stack, { plan: 'free' });
      const freeProject = await createProject(free.api, 'Free');
      const freeHook = await createConnection(stack, free.organizationId, 'webhook');
      const quota = await createWorkflow(
        free.api,
        freeProject,
        { nodes: [nodes.webhook('hook', freeHook.connectionId)], edges: [] },
        { name: 'Quota' },
      );
      const limit = (await free.api.GET('/api/v1/billing')).data!.limits.runs!;
      await db.query(
        `INSERT INTO catalog.run_usage (organization_id, period, runs)
         VALUES ($1, date_trunc('month', now() AT TIME ZONE 'UTC')::date, $2)
         ON CONFLICT (organization_id, period) DO UPDATE SET runs = $2`,
        [free.organizationId, limit],
      );
      await send(freeHook.connectionId, freeHook.secret!, { marker: 'quota' });
      const [refused] = await outcomesOf(free.api, quota, 'quota', ['hook']);
      expect(refused).toMatchObject({ outcome: 'limit_reached', runId: null });
    });
  });

  describe('stored events', () => {
    it('fans out an event whose queueing was lost, from the sweep', async () => {
      const workflowId = await createWorkflow(org.api, projectId, {
        nodes: [nodes.webhook('hook', hook.connectionId, { lost: true })],
        edges: [],
      });
      // Stored as ingress stores it, but its job never reached JetStream (a crash right after the insert).
      await db.query(
        `INSERT INTO events.app_events (id, organization_id, connection_id, trigger, delivery_id, payload, fired_at, received_at)
         VALUES ($1, $2, $3, 'webhook/received', $4, $5, now(), now() - interval '1 minute')`,
        [
          randomUUID(),
          org.organizationId,
          hook.connectionId,
          `msg_${randomUUID()}`,
          JSON.stringify({ marker: 'swept', lost: true }),
        ],
      );
      const [outcome] = await outcomesOf(org.api, workflowId, 'swept', ['hook']);
      expect(outcome).toMatchObject({ outcome: 'started' });
    });

    it('deletes events after 30 days, with their outcomes', async () => {
      const workflowId = await createWorkflow(org.api, projectId, {
        nodes: [nodes.webhook('hook', hook.connectionId, { kept: true })],
        edges: [],
      });
      await send(hook.connectionId, hook.secret, { marker: 'recent', kept: true });
      await outcomesOf(org.api, workflowId, 'recent', ['hook']);
      const old = randomUUID();
      // One statement: retention, every second, could otherwise delete the event before its outcome
      // is written, and the outcome's insert would then break its foreign key.
      await db.query(
        `WITH event AS (
           INSERT INTO events.app_events
             (id, organization_id, connection_id, trigger, delivery_id, payload, fired_at, received_at, listeners_resolved, fanned_out_at)
           VALUES ($1, $2, $3, 'webhook/received', $4, '{"marker":"old"}', now() - interval '31 days', now() - interval '31 days', true, now())
           RETURNING id
         )
         INSERT INTO events.event_outcomes (event_id, workflow_id, trigger_node_id, organization_id, outcome)
         SELECT id, $5, 'hook', $2, 'no_listener' FROM event`,
        [old, org.organizationId, hook.connectionId, `msg_${randomUUID()}`, workflowId],
      );
      // The shared stack runs retention every second (global-setup).
      await waitFor(
        async () => {
          const { rows } = await db.query(
            `SELECT count(*)::int AS n FROM events.event_outcomes WHERE event_id = $1`,
            [old],
          );
          return rows[0].n === 0 ? true : undefined;
        },
        { what: 'the 31-day-old event to be deleted' },
      );
      const kept = await eventsOf(org.api, workflowId);
      expect(kept.map((event) => JSON.parse(event.preview).marker)).toEqual(['recent']);
    });
  });

  describe('subscriptions', () => {
    it('lets exactly one of two publishes racing for the last subscription win', async () => {
      const free = await createOrganization(stack, { plan: 'free' });
      const freeProject = await createProject(free.api, 'Race');
      const freeHook = await createConnection(stack, free.organizationId, 'webhook');
      const limit = (await free.api.GET('/api/v1/billing')).data!.limits.subscriptions!;
      const create = (diagram: TestDiagram) =>
        createWorkflow(free.api, freeProject, diagram, { name: 'Race', publish: false });
      const filler = await create({
        nodes: Array.from({ length: limit - 1 }, (_, index) =>
          nodes.webhook(`f${index}`, freeHook.connectionId, { f: index }),
        ),
        edges: [],
      });
      await publishWorkflow(free.api, filler, {});
      const racers = await Promise.all(
        ['a', 'b'].map((name) =>
          create({ nodes: [nodes.webhook(name, freeHook.connectionId, { racer: name })], edges: [] }),
        ),
      );
      const answers = await Promise.all(
        racers.map((id) =>
          free.api.POST('/api/v1/workflows/{id}/publish', { params: { path: { id } }, body: {} }),
        ),
      );
      expect(answers.map((answer) => answer.response.status).sort()).toEqual([201, 402]);
    });

    it('shares one subscription per connection, trigger and filter, and answers 402 past the plan', async () => {
      const free = await createOrganization(stack, { plan: 'free' });
      const freeProject = await createProject(free.api, 'Subscriptions');
      const freeHook = await createConnection(stack, free.organizationId, 'webhook');
      const limit = (await free.api.GET('/api/v1/billing')).data!.limits.subscriptions!;
      const triggers = (prefix: string, count: number, offset = 0) =>
        Array.from({ length: count }, (_, index) =>
          nodes.webhook(`${prefix}${index}`, freeHook.connectionId, { n: index + offset }),
        );
      const create = (diagram: TestDiagram) =>
        createWorkflow(free.api, freeProject, diagram, { name: 'Subs', publish: false });

      const full = await create({ nodes: triggers('t', limit), edges: [] });
      await publishWorkflow(free.api, full, {});
      // The same connection, trigger and filter as one of the first workflow's: no new subscription.
      const shared = await create({ nodes: triggers('s', 1), edges: [] });
      await publishWorkflow(free.api, shared, {});
      const over = await create({ nodes: triggers('o', 1, limit), edges: [] });
      const refused = await free.api.POST('/api/v1/workflows/{id}/publish', {
        params: { path: { id: over } },
        body: {},
      });
      expect(refused.response.status).toBe(402);
      expect(refused.error?.error).toMatchObject({
        code: 'plan_limit_reached',
        details: { resource: 'subscriptions', limit },
      });
      expect((await getWorkflow(free.api, over)).publishedVersion).toBeNull();

      // Both listeners of the shared subscription hear one delivery.
      await deliver(
        stack.baseUrl,
        freeHook.connectionId,
        signedDelivery(freeHook.secret!, { marker: 'shared', n: 0 }),
      );
      await outcomesOf(free.api, full, 'shared', ['t0']);
      await outcomesOf(free.api, shared, 'shared', ['s0']);

      // Pausing frees the places its subscriptions held; resuming past the limit is refused the same way.
      expect(
        await statusOf(free.api.POST('/api/v1/workflows/{id}/pause', { params: { path: { id: full } } })),
      ).toBe(200);
      await publishWorkflow(free.api, over, {});
      const resumed = await free.api.POST('/api/v1/workflows/{id}/resume', {
        params: { path: { id: full } },
      });
      expect(resumed.response.status).toBe(402);
      expect(resumed.error?.error.details).toMatchObject({ resource: 'subscriptions' });
      expect((await getWorkflow(free.api, full)).pausedAt).not.toBeNull();
    });

    it('answers subscription_failed for a connection or trigger it cannot subscribe, and saves nothing', async () => {
      const http = await createConnection(stack, org.organizationId, 'http');
      for (const trigger of [
        nodes.webhook('hook', '01900000-0000-7000-8000-000000000000'),
        nodes.webhook('hook', http.connectionId),
        {
          id: 'hook',
          data: {
            type: 'trigger',
            properties: { kind: 'event', connectionId: hook.connectionId, trigger: 'webhook/exploded' },
          },
        },
      ]) {
        const workflowId = await createWorkflow(
          org.api,
          projectId,
          { nodes: [trigger], edges: [] },
          { publish: false },
        );
        const refused = await org.api.POST('/api/v1/workflows/{id}/publish', {
          params: { path: { id: workflowId } },
          body: {},
        });
        expect({ status: refused.response.status, code: refused.error?.error?.code }).toEqual({
          status: 400,
          code: 'subscription_failed',
        });
        expect((await getWorkflow(org.api, workflowId)).publishedVersion).toBeNull();
        expect(
          (await org.api.GET('/api/v1/workflows/{id}/versions', { params: { path: { id: workflowId } } }))
            .data!.data,
        ).toEqual([]);
      }
    });

    it('runs nothing while paused, not even after resume, and replaces the triggers of a new version', async () => {
      const workflowId = await createWorkflow(org.api, projectId, {
        nodes: [nodes.webhook('first', hook.connectionId, { w: 'pause' })],
        edges: [],
      });
      expect(
        await statusOf(
          org.api.POST('/api/v1/workflows/{id}/pause', { params: { path: { id: workflowId } } }),
        ),
      ).toBe(200);
      await send(hook.connectionId, hook.secret, { marker: 'while-paused', w: 'pause' });
      const [paused] = await outcomesOf(org.api, workflowId, 'while-paused', ['first']);
      expect(paused).toMatchObject({ outcome: 'no_listener', runId: null });

      expect(
        await statusOf(
          org.api.POST('/api/v1/workflows/{id}/resume', { params: { path: { id: workflowId } } }),
        ),
      ).toBe(200);
      await send(hook.connectionId, hook.secret, { marker: 'after-resume', w: 'pause' });
      const [resumed] = await outcomesOf(org.api, workflowId, 'after-resume', ['first']);
      expect(resumed).toMatchObject({ outcome: 'started' });
      await finished(org.api, resumed!.runId!, RUN_WAIT);
      expect((await runsOf(org.api, workflowId)).map((run) => run.id)).toEqual([resumed!.runId]);

      // Version 2 listens with another trigger; version 1's stops at once.
      await org.api.PATCH('/api/v1/workflows/{id}', {
        params: { path: { id: workflowId } },
        body: {
          diagram: { nodes: [nodes.webhook('second', hook.connectionId, { w: 'pause' })], edges: [] },
        },
      });
      await publishWorkflow(org.api, workflowId, {});
      await send(hook.connectionId, hook.secret, { marker: 'version-two', w: 'pause' });
      const outcomes = await outcomesOf(org.api, workflowId, 'version-two', ['second']);
      expect(outcomes.map((outcome) => outcome.triggerNodeId)).toEqual(['second']);
    });
  });

  describe('replay', () => {
    it('starts nothing new for a trigger that started a run, starts the others, and answers 404 and 400', async () => {
      const workflowId = await createWorkflow(org.api, projectId, {
        nodes: [nodes.webhook('hook', hook.connectionId, { r: 1 }), nodes.trigger('api')],
        edges: [],
      });
      expect(
        await statusOf(
          org.api.POST('/api/v1/workflows/{id}/pause', { params: { path: { id: workflowId } } }),
        ),
      ).toBe(200);
      await send(hook.connectionId, hook.secret, { marker: 'replayed', r: 1 });
      await outcomesOf(org.api, workflowId, 'replayed', ['hook']);
      expect(
        await statusOf(
          org.api.POST('/api/v1/workflows/{id}/resume', { params: { path: { id: workflowId } } }),
        ),
      ).toBe(200);
      const [event] = await eventsOf(org.api, workflowId);

      const replay = (triggerNodeId: string, eventId = event!.id) =>
        org.api.POST('/api/v1/workflows/{id}/events/{eventId}/replay', {
          params: { path: { id: workflowId, eventId } },
          body: { triggerNodeId },
        });
      const queued = await replay('hook');
      expect({ status: queued.response.status, body: queued.data }).toMatchObject({
        status: 200,
        body: { queued: true },
      });
      const started = await waitFor(async () => {
        const [current] = await eventsOf(org.api, workflowId);
        return current!.outcomes.find((outcome) => outcome.outcome === 'started');
      });
      await finished(org.api, started.runId!, RUN_WAIT);

      // Started once: a second replay starts nothing new.
      expect(await statusOf(replay('hook'))).toBe(200);
      // The api trigger is not an App event trigger of this event: it records no_listener.
      expect(await statusOf(replay('api'))).toBe(200);
      await outcomesOf(org.api, workflowId, 'replayed', ['api']);
      const [after] = await eventsOf(org.api, workflowId);
      expect(after!.outcomes.find((outcome) => outcome.triggerNodeId === 'api')).toMatchObject({
        outcome: 'no_listener',
      });
      expect(after!.outcomes.find((outcome) => outcome.triggerNodeId === 'hook')).toMatchObject({
        outcome: 'started',
        runId: started.runId,
      });
      expect(await runsOf(org.api, workflowId)).toHaveLength(1);

      expect((await replay('hook', '01900000-0000-7000-8000-000000000000')).error?.error.code).toBe(
        'event_not_found',
      );
      // Without the triggerNodeId the document requires: sent past the typed client.
      const invalid = await org.api.raw.post<ErrorBody>(
        `/api/v1/workflows/${workflowId}/events/${event!.id}/replay`,
        {},
      );
      expect(invalid.status).toBe(400);
      const issues = invalid.body.error.details!.issues!;
      expect(issues.length).toBeGreaterThan(0);
      expect(issues.map((issue) => issue.path)).toEqual(issues.map(() => 'triggerNodeId'));
    });

    it('replays many events by outcome and time as an operation, each once, starting nothing twice', async () => {
      const workflowId = await createWorkflow(org.api, projectId, {
        nodes: [nodes.webhook('hook', hook.connectionId, { bulk: 1 })],
        edges: [],
      });
      const pauseOrResume = (action: 'pause' | 'resume') =>
        statusOf(org.api.POST(`/api/v1/workflows/{id}/${action}`, { params: { path: { id: workflowId } } }));
      expect(await pauseOrResume('pause')).toBe(200);
      const markers = ['bulk-a', 'bulk-b', 'bulk-c'];
      for (const marker of markers) await send(hook.connectionId, hook.secret, { marker, bulk: 1 });
      for (const marker of markers) await outcomesOf(org.api, workflowId, marker, ['hook']);
      expect(await pauseOrResume('resume')).toBe(200);

      const replayMany = async (body: { outcome?: 'no_listener' | 'started'; after?: string }) => {
        const accepted = expectData(
          await org.api.POST('/api/v1/workflows/{id}/events/replay', {
            params: { path: { id: workflowId } },
            body: { triggerNodeId: 'hook', ...body },
          }),
          202,
        );
        return waitFor(
          async () => {
            const now = expectData(
              await org.api.GET('/api/v1/operations/{id}', { params: { path: { id: accepted.id } } }),
              200,
            );
            return now.status === 'complete' ? now : undefined;
          },
          { timeoutMs: 30_000, what: 'the replay to complete' },
        );
      };
      // Events kept while the workflow was paused: no trigger listened to them.
      const replayed = await replayMany({ outcome: 'no_listener' });
      expect(replayed).toMatchObject({ action: 'replay', matched: 3, done: 3, failed: 0 });
      const started = await waitFor(
        async () => {
          const events = await eventsOf(org.api, workflowId);
          const runIds = events.flatMap((event) =>
            event.outcomes.filter((outcome) => outcome.outcome === 'started').map((outcome) => outcome.runId),
          );
          return runIds.length === 3 ? runIds : undefined;
        },
        { timeoutMs: 20_000, what: 'each event to start its run' },
      );
      expect(new Set(started).size).toBe(3);
      // Replaying what already started a run starts nothing new; a range after the events matches none.
      expect(await replayMany({ outcome: 'started' })).toMatchObject({ matched: 3, failed: 0 });
      expect(await replayMany({ after: new Date(Date.now() + 60_000).toISOString() })).toMatchObject({
        matched: 0,
      });
      expect(await runsOf(org.api, workflowId)).toHaveLength(3);
    });

    it('records dead for a replay whose connection is gone', async () => {
      const member = await createMember(stack, org.organizationId, 'admin');
      const doomed = await createConnection(stack, org.organizationId, 'webhook');
      const workflowId = await createWorkflow(org.api, projectId, {
        nodes: [nodes.webhook('hook', doomed.connectionId)],
        edges: [],
      });
      expect(
        await statusOf(
          org.api.POST('/api/v1/workflows/{id}/pause', { params: { path: { id: workflowId } } }),
        ),
      ).toBe(200);
      await send(doomed.connectionId, doomed.secret!, { marker: 'dead' });
      await outcomesOf(org.api, workflowId, 'dead', ['hook']);
      expect(
        await statusOf(
          org.api.POST('/api/v1/workflows/{id}/resume', { params: { path: { id: workflowId } } }),
        ),
      ).toBe(200);
      expect((await member.api.raw.delete(`/app/connections/${doomed.connectionId}`)).status).toBe(200);

      const [event] = await eventsOf(org.api, workflowId);
      expect(
        await statusOf(
          org.api.POST('/api/v1/workflows/{id}/events/{eventId}/replay', {
            params: { path: { id: workflowId, eventId: event!.id } },
            body: {
              triggerNodeId: 'hook',
            },
          }),
        ),
      ).toBe(200);
      const dead = await waitFor(async () => {
        const [current] = await eventsOf(org.api, workflowId);
        return current!.outcomes.find((outcome) => outcome.outcome === 'dead');
      });
      expect(dead).toMatchObject({ triggerNodeId: 'hook', runId: null });
      // The dashboard hears of the broken trigger, its connection gone.
      const { triggers } = (await org.api.GET('/api/v1/dashboard')).data!;
      expect(triggers).toContainEqual({
        workflowId,
        workflowName: expect.any(String),
        triggerNodeId: 'hook',
        connectionId: doomed.connectionId,
        status: 'error',
        error: expect.stringMatching(/deleted/),
        health: null,
      });
      // A delivery to the deleted connection is refused.
      expect((await send(doomed.connectionId, doomed.secret!, { marker: 'after-delete' })).status).toBe(401);
    });
  });

  describe('actions', () => {
    let target: HttpTarget;
    // The organization has other http connections (see subscription_failed): actions name this one.
    let connectionId: string;

    let elsewhere: HttpTarget;

    beforeAll(async () => {
      [target, elsewhere] = await Promise.all([HttpTarget.start(), HttpTarget.start()]);
      ({ connectionId } = await createConnection(stack, org.organizationId, 'http', {
        config: { headers: { 'x-app-token': 'secret-token' }, allowedOrigins: [target.url] },
      }));
    });

    afterAll(async () => {
      await Promise.all([target?.stop(), elsewhere?.stop()]);
    });

    const runOf = (workflowId: string, input: unknown) =>
      runToEnd(org.api, workflowId, { input: JSON.stringify(input) }, RUN_WAIT);

    it('calls http__request with its idempotency key, and retries a failed attempt with the next key', async () => {
      target.respond(
        '/flaky',
        { status: 500, body: { error: 'try again' } },
        { status: 201, body: { id: 42 } },
      );
      const workflowId = await createWorkflow(
        org.api,
        projectId,
        chainOf(
          nodes.trigger('t'),
          nodes.action(
            'call',
            'http__request',
            { method: 'POST', url: `${target.url}/flaky`, body: { name: '{{trigger.name}}' } },
            { connectionId, retry: { attempts: 1, backoffSeconds: 1 } },
          ),
        ),
      );
      const run = await runOf(workflowId, { name: 'Ada' });
      expect(run.status).toBe('complete');
      const step = stepOf(run, 'call')!;
      expect(step.output!.status).toBe('201');
      expect(JSON.parse(step.output!.result!)).toMatchObject({ status: 201, body: { id: 42 } });

      const calls = target.requestsTo('/flaky');
      expect(calls.map((call) => call.headers['idempotency-key'])).toEqual([
        `${run.id}:call:1`,
        `${run.id}:call:2`,
      ]);
      expect(calls.map((call) => JSON.parse(call.body))).toEqual([{ name: 'Ada' }, { name: 'Ada' }]);
      expect(calls[0]!.headers['x-app-token']).toBe('secret-token');
    });

    it("sends the connection's headers to its allowed origin only: not to another, not across a redirect", async () => {
      // Two servers on two ports are two origins; the connection allows the first one only.
      target.respond('/hop', { status: 307, headers: { location: `${elsewhere.url}/landed` } });
      const call = (id: string, url: string) =>
        nodes.action('call-' + id, 'http__request', { method: 'POST', url, body: { id } }, { connectionId });
      const workflowId = await createWorkflow(
        org.api,
        projectId,
        chainOf(
          nodes.trigger('t'),
          call('mine', `${target.url}/mine`),
          call('direct', `${elsewhere.url}/direct`),
          call('hop', `${target.url}/hop`),
        ),
      );
      expect((await runOf(workflowId, {})).status).toBe('complete');
      const token = (request: { headers: Record<string, unknown> }) => request.headers['x-app-token'];
      expect(target.requestsTo('/mine').map(token)).toEqual(['secret-token']);
      expect(target.requestsTo('/hop').map(token)).toEqual(['secret-token']);
      // Each request reached the other origin, without the token; the redirect kept its body.
      expect(elsewhere.received.map((request) => [request.path, token(request), request.body])).toEqual([
        ['/direct', undefined, '{"id":"direct"}'],
        ['/landed', undefined, '{"id":"hop"}'],
      ]);

      // A failure there says why the app may not have known the caller.
      elsewhere.respond('/refused', { status: 401, body: { error: 'who are you?' } });
      const refused = await createWorkflow(
        org.api,
        projectId,
        chainOf(nodes.trigger('t'), call('x', `${elsewhere.url}/refused`)),
      );
      const failed = await runOf(refused, {});
      expect(stepOf(failed, 'call-x')!.error).toContain(
        `the connection's headers were not sent to ${elsewhere.url}`,
      );
    });

    it('lets an admin move where headers go, rotate a sending secret and delete; members connect with origins', async () => {
      const member = await createMember(stack, org.organizationId);
      const admin = await createMember(stack, org.organizationId, 'admin');
      const config = {
        headers: { authorization: 'Bearer t' },
        allowedOrigins: ['https://API.example.com:443'],
      };
      const made = await member.api.raw.post<CreatedConnectionDto>('/app/connections', {
        integrationId: 'http',
        name: 'Api',
        config,
      });
      expect(made).toMatchObject({ status: 201, body: { allowedOrigins: ['https://api.example.com'] } });
      const unbound = await member.api.raw.post<ErrorBody>('/app/connections', {
        integrationId: 'http',
        name: 'Unbound',
        config: { headers: { authorization: 'Bearer t' } },
      });
      expect(unbound.status).toBe(400);
      expect(unbound.body.error.details?.issues).toEqual([
        { path: 'config.allowedOrigins', message: expect.stringMatching(/origins/) },
      ]);

      const moved = await admin.api.raw.patch<ConnectionDto>(`/app/connections/${made.body.id}`, {
        allowedOrigins: [target.url],
      });
      expect(moved).toMatchObject({ status: 200, body: { id: made.body.id, allowedOrigins: [target.url] } });
      const listed = await member.api.raw.listAll<ConnectionDto>('/app/connections');
      expect(listed.find((connection) => connection.id === made.body.id)!.allowedOrigins).toEqual([
        target.url,
      ]);
      expect(JSON.stringify(listed)).not.toContain('Bearer t');
      expect(
        (await admin.api.raw.patch(`/app/connections/${hook.connectionId}`, { allowedOrigins: [target.url] }))
          .status,
      ).toBe(400);

      const webhook = await createConnection(stack, org.organizationId, 'webhook');
      const rotated = await admin.api.raw.post<SendingSecretDto>(
        `/app/connections/${webhook.connectionId}/sending-secret`,
        {},
      );
      expect(rotated.status).toBe(201);
      expect(rotated.body.sendingSecret).toMatch(/^whsec_/);
      expect([webhook.secret, webhook.sendingSecret]).not.toContain(rotated.body.sendingSecret);
      const workflowId = await createWorkflow(
        org.api,
        projectId,
        chainOf(
          nodes.trigger('t'),
          nodes.action(
            'send',
            'webhook__send',
            { url: `${target.url}/rotated`, body: {} },
            {
              connectionId: webhook.connectionId,
            },
          ),
        ),
      );
      expect((await runOf(workflowId, {})).status).toBe('complete');
      const [sent] = target.requestsTo('/rotated');
      const headers = sent!.headers as Record<string, string>;
      expect(() => new Webhook(rotated.body.sendingSecret).verify(sent!.body, headers)).not.toThrow();
      expect(() => new Webhook(webhook.sendingSecret!).verify(sent!.body, headers)).toThrow();
      // Operators rotate with the admin CLI.
      const byOperator = await adminCli<{ sendingSecret: string }>(
        [
          'connection',
          'rotate-sending-secret',
          '--org',
          org.organizationId,
          '--connection',
          webhook.connectionId,
        ],
        stack.env,
      );
      expect(byOperator.sendingSecret).toMatch(/^whsec_/);
      expect(byOperator.sendingSecret).not.toBe(rotated.body.sendingSecret);

      expect((await admin.api.raw.delete(`/app/connections/${made.body.id}`)).status).toBe(200);
      expect((await admin.api.raw.delete(`/app/connections/${webhook.connectionId}`)).status).toBe(200);
    });

    it('fails the step when the app does not answer within timeoutMs', async () => {
      target.respond('/slow', { delayMs: 3_000 });
      const workflowId = await createWorkflow(
        org.api,
        projectId,
        chainOf(
          nodes.trigger('t'),
          nodes.action(
            'call',
            'http__request',
            { method: 'GET', url: `${target.url}/slow`, timeoutMs: 300 },
            { connectionId },
          ),
        ),
      );
      const run = await runOf(workflowId, {});
      expect(run.status).toBe('errored');
      expect(run.steps.find((step) => step.nodeId === 'call')).toMatchObject({
        status: 'error',
        error: expect.stringMatching(/time/i),
      });
    });

    it('sends webhook__send with the event connection the run started from', async () => {
      const other = await createConnection(stack, org.organizationId, 'webhook');
      const workflowId = await createWorkflow(
        org.api,
        projectId,
        chainOf(
          nodes.webhook('hook', other.connectionId),
          nodes.action('send', 'webhook__send', {
            url: `${target.url}/sent`,
            body: { hello: '{{trigger.who}}' },
          }),
        ),
      );
      await send(other.connectionId, other.secret!, { marker: 'send', who: 'world' });
      const [outcome] = await outcomesOf(org.api, workflowId, 'send', ['hook']);
      const run = await finished(org.api, outcome!.runId!, RUN_WAIT);
      expect(run.status).toBe('complete');
      const [sent] = target.requestsTo('/sent');
      expect(sent).toMatchObject({ method: 'POST' });
      expect(JSON.parse(sent!.body)).toEqual({ hello: 'world' });
      expect(sent!.headers['idempotency-key']).toBe(`${run.id}:send:1`);
      // Signed with the connection's sending secret, so the receiver can check where it came from,
      const headers = sent!.headers as Record<string, string>;
      expect(() => new Webhook(other.sendingSecret!).verify(sent!.body, headers)).not.toThrow();
      // and not with the secret our ingress verifies: replayed to /hooks/{id}, it is refused, unstored.
      expect(() => new Webhook(other.secret!).verify(sent!.body, headers)).toThrow();
      const replayed = await deliver(stack.baseUrl, other.connectionId, {
        body: sent!.body,
        headers: Object.fromEntries(
          ['content-type', 'webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [
            name,
            headers[name]!,
          ]),
        ),
      });
      expect({ status: replayed.status, code: replayed.body?.error?.code }).toEqual({
        status: 401,
        code: 'unauthorized',
      });
      const { rows } = await db.query(`SELECT payload FROM events.app_events WHERE connection_id = $1`, [
        other.connectionId,
      ]);
      expect(rows.map((row) => JSON.parse(row.payload).marker)).toEqual(['send']);
    });

    it('posts slack__post_message through the connection, and marks it unhealthy when Slack refuses it', async () => {
      const slackOrg = await createOrganization(stack);
      const slackProject = await createProject(slackOrg.api, 'Slack');
      const slack = await createConnection(stack, slackOrg.organizationId, 'slack', {
        config: { webhookUrl: `${target.url}/slack/T000/B000` },
      });
      target.respond('/slack/T000/B000', { status: 200, body: 'ok' }, { status: 410, body: 'no_service' });
      const workflowId = await createWorkflow(
        slackOrg.api,
        slackProject,
        chainOf(
          nodes.trigger('t'),
          nodes.action('post', 'slack__post_message', { text: 'Hi {{trigger.name}}' }),
        ),
        { name: 'Slack' },
      );
      const runWith = async (name: string) => {
        const started = await startRun(slackOrg.api, workflowId, { input: JSON.stringify({ name }) });
        return finished(slackOrg.api, started.data!.id, RUN_WAIT);
      };
      expect((await runWith('Ada')).status).toBe('complete');
      expect(JSON.parse(target.requestsTo('/slack/T000/B000')[0]!.body)).toEqual({ text: 'Hi Ada' });
      const refused = await runWith('Bob');
      expect(refused.status).toBe('errored');
      expect(stepOf(refused, 'post')!.error).toMatch(/410/);
      const member = await createMember(stack, slackOrg.organizationId);
      const [connection] = await member.api.raw.listAll<ConnectionDto>('/app/connections');
      expect(connection).toMatchObject({
        id: slack.connectionId,
        integrationId: 'slack',
        health: 'unhealthy',
      });
    });

    it('refuses to publish an action with no connection to use (publish rule 4)', async () => {
      const lonely = await createOrganization(stack);
      const lonelyProject = await createProject(lonely.api, 'Lonely');
      const workflowId = await createWorkflow(
        lonely.api,
        lonelyProject,
        chainOf(
          nodes.trigger('t'),
          nodes.action('call', 'http__request', { method: 'GET', url: 'https://example.com' }),
        ),
        { name: 'No connection', publish: false },
      );
      const refused = await lonely.api.POST('/api/v1/workflows/{id}/publish', {
        params: { path: { id: workflowId } },
        body: {},
      });
      expect(refused.response.status).toBe(400);
      expect(refused.error?.error).toMatchObject({
        code: 'invalid_workflow',
        details: { issues: [expect.objectContaining({ nodeId: 'call' })] },
      });
    });
  });

  describe('tenant isolation and browser routes', () => {
    it('keeps connections, events and replays to their organization, and connections to members', async () => {
      const workflowId = await createWorkflow(org.api, projectId, {
        nodes: [nodes.webhook('hook', hook.connectionId, { iso: 1 })],
        edges: [],
      });
      await send(hook.connectionId, hook.secret, { marker: 'isolation', iso: 1 });
      await outcomesOf(org.api, workflowId, 'isolation', ['hook']);
      const [event] = await eventsOf(org.api, workflowId);

      const other = await createOrganization(stack);
      expect(
        (await other.api.GET('/api/v1/workflows/{id}/events', { params: { path: { id: workflowId } } })).error
          ?.error.code,
      ).toBe('workflow_not_found');
      expect(
        (
          await other.api.POST('/api/v1/workflows/{id}/events/{eventId}/replay', {
            params: { path: { id: workflowId, eventId: event!.id } },
            body: {
              triggerNodeId: 'hook',
            },
          })
        ).error?.error.code,
      ).toMatch(/^(workflow|event)_not_found$/);

      // Connecting apps is for signed-in members: keys are refused.
      expect((await org.api.raw.get<ErrorBody>('/app/connections')).body.error.code).toBe('forbidden');
      const member = await createMember(stack, org.organizationId);
      const outsider = await createMember(stack, other.organizationId);
      const mine = await member.api.raw.listAll<ConnectionDto>('/app/connections');
      expect(mine.map((connection) => connection.id)).toContain(hook.connectionId);
      expect(JSON.stringify(mine)).not.toMatch(/whsec_|secret-token/);
      expect(
        (await outsider.api.raw.listAll<ConnectionDto>('/app/connections')).map(
          (connection) => connection.id,
        ),
      ).not.toContain(hook.connectionId);
      expect((await outsider.api.raw.delete(`/app/connections/${hook.connectionId}`)).status).toBe(404);

      const made = await member.api.raw.post<CreatedConnectionDto>('/app/connections', {
        integrationId: 'webhook',
        name: 'From the browser',
      });
      expect(made.status).toBe(201);
      expect(made.body).toMatchObject({
        integrationId: 'webhook',
        name: 'From the browser',
        health: 'healthy',
      });
      expect(made.body.secret).toMatch(/^whsec_/);
      expect(
        (await member.api.raw.post('/app/connections', { integrationId: 'carrier-pigeon', name: 'x' }))
          .status,
      ).toBe(400);
    });
  });
});
