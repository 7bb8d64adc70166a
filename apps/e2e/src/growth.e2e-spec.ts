import { randomUUID } from 'node:crypto';

import { RunnerSubjects, servicePrincipal, type StartRunsReply } from '#contracts';
import {
  chainOf,
  connectAs,
  createConnection,
  createOrganization,
  createProject,
  createWorkflow,
  deliver,
  eventsOf,
  nodes,
  type OrganizationFixture,
  runsOf,
  signedDelivery,
  startRun,
  TestStack,
  waitFor,
} from '#testing';
import pg from 'pg';

/**
 * The growth benchmarks' paths at test size (docs/benchmarks.md, "Growth"; the full sizes run only
 * there): many schedules due at once, one event reaching many workflows, and many delays woken at
 * their time rather than at the sweeper's next interval.
 */
describe('growth', () => {
  let stack: TestStack;
  let org: OrganizationFixture;
  let projectId: string;
  let db: pg.Client;

  beforeAll(async () => {
    // A sweep interval longer than any wait here: a delay that wakes must have been woken at its time.
    stack = await TestStack.start(
      { RATE_LIMIT_PER_HOUR: '1000000', RUNNER_SWEEP_INTERVAL_MS: '120000' },
      { services: ['catalog', 'workflow', 'runner', 'events'] },
    );
    await stack.startService('workflow', {}, 'workflow-2');
    org = await createOrganization(stack.description);
    projectId = await createProject(org.api, 'Growth');
    db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  it('fires 100 schedules due at once exactly once each, with two schedulers polling', async () => {
    const workflowId = await createWorkflow(
      org.api,
      projectId,
      { nodes: [nodes.schedule('s', '0 0 1 1 *')], edges: [] },
      { name: 'Yearly' },
    );
    // 99 copies of the published workflow, its version and its schedule row, as the benchmark makes
    // 10,000; then every schedule is due now.
    await db.query(
      `CREATE TEMP TABLE copies AS
         SELECT (lpad(to_hex((extract(epoch FROM now()) * 1000)::bigint), 12, '0') || '7' ||
                 substr(md5('w' || g), 1, 3) || '8' || substr(md5('w' || g), 4, 15))::uuid AS id, g
           FROM generate_series(1, 99) AS g`,
    );
    await db.query(
      `INSERT INTO workflow.workflows (id, organization_id, project_id, name, description, diagram,
         published_version, created_by)
       SELECT c.id, w.organization_id, w.project_id, w.name || ' ' || c.g, w.description, w.diagram,
         w.published_version, w.created_by
       FROM workflow.workflows w, copies c WHERE w.id = $1`,
      [workflowId],
    );
    await db.query(
      `INSERT INTO workflow.versions (id, workflow_id, number, time_zone, diagram, published_by)
       SELECT gen_random_uuid(), c.id, v.number, v.time_zone, v.diagram, v.published_by
       FROM workflow.versions v, copies c WHERE v.workflow_id = $1`,
      [workflowId],
    );
    await db.query(
      `INSERT INTO workflow.schedules (workflow_id, trigger_node_id, organization_id, version, cron, time_zone, next_run_at)
       SELECT c.id, s.trigger_node_id, s.organization_id, s.version, s.cron, s.time_zone, s.next_run_at
       FROM workflow.schedules s, copies c WHERE s.workflow_id = $1`,
      [workflowId],
    );
    await db.query(`UPDATE workflow.schedules SET next_run_at = now() WHERE organization_id = $1`, [
      org.organizationId,
    ]);

    const fired = async () =>
      (
        await db.query<{ runs: number; workflows: number }>(
          `SELECT count(*)::int AS runs, count(DISTINCT workflow_id)::int AS workflows FROM runner.runs
            WHERE organization_id = $1 AND trigger = 'schedule'`,
          [org.organizationId],
        )
      ).rows[0];
    await waitFor(async () => ((await fired())?.runs === 100 ? true : undefined), {
      what: '100 scheduled runs',
      timeoutMs: 60_000,
    });
    // Every schedule moved on to next year, so nothing more fires; each due time made one run.
    await waitFor(
      async () => {
        const { rows } = await db.query<{ due: number }>(
          `SELECT count(*)::int AS due FROM workflow.schedules
            WHERE organization_id = $1 AND next_run_at <= now()`,
          [org.organizationId],
        );
        return rows[0]?.due === 0 ? true : undefined;
      },
      { what: 'every schedule to move to its next due time' },
    );
    expect(await fired()).toEqual({ runs: 100, workflows: 100 });

    // Due in a few seconds, within the lead (SCHEDULE_LEAD_MS): each run is written before its time,
    // held for it, and goes on at it, though the sweep interval here is two minutes. One workflow is
    // paused meanwhile: its run, already written, never starts.
    const { rows: dues } = await db.query<{ due: Date }>(
      `UPDATE workflow.schedules SET next_run_at = date_trunc('second', now()) + interval '5 seconds'
        WHERE organization_id = $1 RETURNING next_run_at AS due`,
      [org.organizationId],
    );
    const due = dues[0]!.due;
    const ofDue = `organization_id = $1 AND idempotency_key LIKE '%:' || $2::text`;
    const held = async () =>
      (
        await db.query<{ held: number }>(
          `SELECT count(*)::int AS held FROM runner.runs
            WHERE ${ofDue} AND held_by = 'schedule' AND status = 'queued'`,
          [org.organizationId, due.toISOString()],
        )
      ).rows[0]?.held;
    await waitFor(async () => ((await held()) === 100 ? true : undefined), {
      what: '100 scheduled runs written before their time and held for it',
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    const pause = await org.api.POST('/api/v1/workflows/{id}/pause', {
      params: { path: { id: workflowId } },
    });
    expect(pause.response.status).toBe(200);
    expect(Date.now()).toBeLessThan(due.getTime());
    await waitFor(async () => ((await held()) === 0 ? true : undefined), {
      what: 'the held runs to go on at their time',
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    await waitFor(
      async () => {
        const { rows } = await db.query<{ unfinished: number }>(
          `SELECT count(*)::int AS unfinished FROM runner.runs
            WHERE ${ofDue} AND status NOT IN ('complete', 'terminated')`,
          [org.organizationId, due.toISOString()],
        );
        return rows[0]?.unfinished === 0 ? true : undefined;
      },
      { what: 'the runs of that due time to complete', timeoutMs: 30_000 },
    );
    const { rows: ran } = await db.query<{
      runs: number;
      workflows: number;
      early: number;
      before: number;
      complete: number;
    }>(
      `SELECT count(*)::int AS runs, count(DISTINCT workflow_id)::int AS workflows,
              count(*) FILTER (WHERE created_at < $3)::int AS early,
              count(*) FILTER (WHERE status = 'complete' AND (finished_at < $3 OR dispatched_at < $3))::int AS before,
              count(*) FILTER (WHERE status = 'complete')::int AS complete
         FROM runner.runs WHERE ${ofDue}`,
      [org.organizationId, due.toISOString(), due],
    );
    expect(ran[0]).toEqual({ runs: 100, workflows: 100, early: 100, before: 0, complete: 99 });
    const { rows: ofPaused } = await db.query<{ status: string; error: string; steps: number }>(
      `SELECT status, error, (SELECT count(*)::int FROM runner.run_steps s WHERE s.run_id = r.id) AS steps
         FROM runner.runs r WHERE ${ofDue} AND workflow_id = $3`,
      [org.organizationId, due.toISOString(), workflowId],
    );
    expect(ofPaused).toEqual([
      {
        status: 'terminated',
        error: expect.stringMatching(/paused before this scheduled run was due/),
        steps: 1,
      },
    ]);
  });

  it("answers each of many starts in its place, as the scheduler's one request for a batch", async () => {
    const workflow = await connectAs(stack.description, 'workflow');
    const publishedId = await createWorkflow(
      org.api,
      projectId,
      { nodes: [nodes.schedule('s', '0 0 1 1 *')], edges: [] },
      { name: 'Yearly, started many' },
    );
    const draftOnly = await createWorkflow(
      org.api,
      projectId,
      { nodes: [nodes.schedule('s', '0 0 1 1 *')], edges: [] },
      { name: 'Never published', publish: false },
    );
    const start = (workflowId: string, idempotencyKey?: string, draft = false) => ({
      workflowId,
      input: '',
      draft,
      triggerNodeId: 's',
      trigger: 'schedule',
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    });
    const startMany = async (starts: object[]) => {
      const message = await workflow.request(
        `${stack.env.NATS_SUBJECT_PREFIX}${RunnerSubjects.runsStartMany.bare}`,
        JSON.stringify({ principal: servicePrincipal(org.organizationId), data: { starts } }),
        { timeout: 10_000 },
      );
      return message.json<{ ok: boolean; data: StartRunsReply }>();
    };
    try {
      const key = `many:${publishedId}`;
      const first = await startMany([
        start(publishedId, key),
        start(publishedId, key),
        start(draftOnly, `many:${draftOnly}`),
        start(randomUUID(), 'many:gone'),
        start(publishedId, 'many:draft', true),
        start(publishedId),
      ]);
      expect(first.ok).toBe(true);
      const [started, again, ...refused] = first.data.results;
      expect(started).toEqual({ runId: expect.any(String), replayed: false });
      const { runId } = started as { runId: string };
      expect(again).toEqual({ runId, replayed: true });
      expect(refused.map((result) => ('error' in result ? result.error.code : result))).toEqual([
        'not_published',
        'workflow_not_found',
        'invalid_request',
        'invalid_request',
      ]);
      // Sent again, the key answers its run; the run itself is the API's like any other.
      expect((await startMany([start(publishedId, key)])).data.results).toEqual([{ runId, replayed: true }]);
      const run = await org.api.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } });
      expect(run.data).toMatchObject({ id: runId, workflowId: publishedId, trigger: 'schedule' });
      const { rows } = await db.query<{ runs: number }>(
        'SELECT count(*)::int AS runs FROM runner.runs WHERE workflow_id = $1',
        [publishedId],
      );
      expect(rows[0]?.runs).toBe(1);
    } finally {
      await workflow.drain();
    }
  });

  it('starts one run of each of 30 workflows that one webhook event reaches', async () => {
    const hook = await createConnection(stack.description, org.organizationId, 'webhook');
    const workflowIds = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        createWorkflow(
          org.api,
          projectId,
          chainOf(nodes.webhook('hook', hook.connectionId), nodes.alwaysTrue('c')),
          { name: `Listener ${i}` },
        ),
      ),
    );
    const answer = await deliver(
      stack.baseUrl,
      hook.connectionId,
      signedDelivery(hook.secret!, { order: 7 }),
    );
    expect(answer.status).toBe(202);

    const { rows } = await waitFor(
      async () => {
        const counted = await db.query<{ workflow_id: string; runs: number }>(
          `SELECT workflow_id, count(*)::int AS runs FROM runner.runs
            WHERE organization_id = $1 AND trigger = 'event' AND status = 'complete' GROUP BY workflow_id`,
          [org.organizationId],
        );
        return counted.rows.length === 30 ? counted : undefined;
      },
      { what: 'a complete run of each listening workflow', timeoutMs: 60_000 },
    );
    expect(rows.map((row) => row.workflow_id).sort()).toEqual([...workflowIds].sort());
    expect(rows.every((row) => row.runs === 1)).toBe(true);
    const [event] = await eventsOf(org.api, workflowIds[0]!);
    expect(event?.outcomes).toEqual([
      expect.objectContaining({ outcome: 'started', runId: expect.any(String) }),
    ]);
  });

  it('wakes 60 delays at their time, not at the next sweep a long interval away', async () => {
    const workflowId = await createWorkflow(
      org.api,
      projectId,
      chainOf(nodes.trigger('t'), nodes.delay('wait', 2), nodes.alwaysTrue('after')),
      { name: 'Delayed' },
    );
    for (let i = 0; i < 60; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          const started = await startRun(org.api, workflowId);
          expect(started.response.status).toBe(201);
        }),
      );
    }
    // The sweeper's interval is two minutes: only the wake each runner expects brings these back.
    await waitFor(
      async () => {
        const runs = await runsOf(org.api, workflowId);
        return runs.length === 60 && runs.every((run) => run.status === 'complete') ? true : undefined;
      },
      { what: 'every delayed run to complete', timeoutMs: 60_000, intervalMs: 500 },
    );
    const { rows } = await db.query<{ steps: number }>(
      `SELECT count(*)::int AS steps FROM runner.run_steps s JOIN runner.runs r ON r.id = s.run_id
        WHERE r.workflow_id = $1 AND s.node_id = 'after' AND s.status = 'done'`,
      [workflowId],
    );
    expect(rows[0]?.steps).toBe(60);
  });
});
