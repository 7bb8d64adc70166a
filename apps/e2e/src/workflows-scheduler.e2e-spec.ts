import { randomUUID } from 'node:crypto';

import {
  type RunTarget,
  type RunTargetsReply,
  RunnerSubjects,
  type StartRunRequest,
  type StartRunsRequest,
  WorkflowSubjects,
} from '#contracts';
import {
  type ApiClient,
  connectAs,
  createOrganization,
  createProject,
  createWorkflow,
  expectData,
  freePort,
  nodes,
  type OrganizationFixture,
  publishWorkflow,
  runningStack,
  type ServiceProcess,
  startService,
  type TestNode,
  waitFor,
} from '#testing';
import type { NatsConnection } from '@nats-io/transport-node';
import pg from 'pg';

const stack = runningStack();
/** Subjects in this process carry no prefix; the stack's services use the stack's own. */
const prefixed = (name: string) => `${stack.env.NATS_SUBJECT_PREFIX}${name}`;

interface StartMessage {
  principal: Record<string, unknown>;
  data: StartRunRequest;
}

async function publishedWorkflow(
  api: ApiClient,
  projectId: string,
  triggers: TestNode[],
  timeZone = 'UTC',
): Promise<string> {
  const workflowId = await createWorkflow(
    api,
    projectId,
    { nodes: triggers, edges: [] },
    { name: 'Scheduled', publish: false },
  );
  await publishWorkflow(api, workflowId, { timeZone });
  return workflowId;
}

/** A workflow as the API answers it. */
const workflowOf = (api: ApiClient, id: string) =>
  api.GET('/api/v1/workflows/{id}', { params: { path: { id } } });

/**
 * The workflow service seen from NATS: as the runner (it answers the start subject and records each
 * request) and as a caller of its internal subjects.
 */
describe('workflow scheduler and internal subjects', () => {
  let org: OrganizationFixture;
  let other: OrganizationFixture;
  let projectId: string;
  let runnerNats: NatsConnection;
  let catalogNats: NatsConnection;
  let db: pg.Client;
  let replica: ServiceProcess;
  const starts: StartMessage[] = [];
  let everyMinute: { workflowId: string; due: string };

  const startsFor = (key: string) => starts.filter((start) => start.data.idempotencyKey === key);

  /** Sends a catalog subject as `as`, which must be one of the subject's callers. */
  async function request<T>(name: string, principal: unknown, data: unknown, as = runnerNats) {
    const message = await as.request(prefixed(name), JSON.stringify({ principal, data }), { timeout: 5_000 });
    return message.json<{ ok: true; data: T } | { ok: false; error: Record<string, unknown> }>();
  }

  beforeAll(async () => {
    [org, other] = await Promise.all([createOrganization(stack), createOrganization(stack)]);
    projectId = await createProject(org.api, 'Schedules');
    db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
    // Observes every run start the schedulers send, with the runner's identity (the only one allowed
    // to); the stack's real runner answers them in its queue group, so this spec never answers one.
    runnerNats = await connectAs(stack, 'runner');
    catalogNats = await connectAs(stack, 'catalog');
    runnerNats.subscribe(prefixed(RunnerSubjects.runsStartMany.bare), {
      callback: (error, message) => {
        if (error) return;
        const { principal, data } = message.json<{
          principal: StartMessage['principal'];
          data: StartRunsRequest;
        }>();
        for (const start of data.starts) starts.push({ principal, data: start });
      },
    });
    await runnerNats.flush();
    // A second replica polling often, so the two race for every due row.
    const port = await freePort();
    replica = await startService('workflow', {
      name: 'workflow-replica',
      env: { ...stack.env, HEALTH_PORT: String(port), SCHEDULER_INTERVAL_MS: '50' },
      readyUrl: `http://127.0.0.1:${port}/health`,
    });
    // Due at the next minute boundary; the last test waits for it to fire through the real clock.
    const workflowId = await publishedWorkflow(org.api, projectId, [nodes.schedule('minute', '* * * * *')]);
    everyMinute = { workflowId, due: (await workflowOf(org.api, workflowId)).data!.nextRunAt! };
  });

  afterAll(async () => {
    await replica?.stop();
    await runnerNats?.drain();
    await catalogNats?.drain();
    await db?.end();
  });

  /** Makes the workflows' schedule rows due at `due`, as if the clock had reached it. */
  async function makeDue(workflowIds: string[], due: Date): Promise<void> {
    const result = await db.query(
      'UPDATE workflow.schedules SET next_run_at = $1 WHERE workflow_id = ANY($2)',
      [due, workflowIds],
    );
    expect(result.rowCount).toBeGreaterThan(0);
  }

  /** Resolves once no row of these workflows is due at `due` any more: every send has committed. */
  async function advancedPast(workflowIds: string[], due: Date): Promise<void> {
    await waitFor(
      async () => {
        const { rows } = await db.query<{ due: number }>(
          'SELECT count(*)::int AS due FROM workflow.schedules WHERE workflow_id = ANY($1) AND next_run_at <= $2',
          [workflowIds, due],
        );
        return rows[0]!.due === 0 ? true : undefined;
      },
      { what: 'the due schedules to advance' },
    );
  }

  it('sends each due time once per trigger, with two replicas polling', async () => {
    // A yearly schedule never falls due by itself during the test; the rows are made due by hand.
    const workflowIds = await Promise.all(
      Array.from({ length: 12 }, () =>
        publishedWorkflow(org.api, projectId, [
          nodes.schedule('a', '0 0 1 1 *'),
          nodes.schedule('b', '0 0 1 1 *'),
        ]),
      ),
    );
    for (let round = 0; round < 3; round += 1) {
      const due = new Date(Math.floor(Date.now() / 1000) * 1000 - 1000 - round);
      await makeDue(workflowIds, due);
      await advancedPast(workflowIds, due);
      for (const workflowId of workflowIds) {
        for (const triggerNodeId of ['a', 'b']) {
          const sent = startsFor(`schedule:${workflowId}:${triggerNodeId}:${due.toISOString()}`);
          expect({ workflowId, triggerNodeId, round, sends: sent.length }).toEqual({
            workflowId,
            triggerNodeId,
            round,
            sends: 1,
          });
          expect(sent[0]).toEqual({
            principal: { organizationId: org.organizationId, userId: null, keyId: null, role: 'admin' },
            data: {
              workflowId,
              input: '',
              draft: false,
              triggerNodeId,
              trigger: 'schedule',
              idempotencyKey: `schedule:${workflowId}:${triggerNodeId}:${due.toISOString()}`,
            },
          });
        }
      }
    }
    // Each row moved on to its next real due time.
    const detail = await workflowOf(org.api, workflowIds[0]!);
    expect(new Date(detail.data!.nextRunAt!).toISOString()).toMatch(/-01-01T00:00:00\.000Z$/);
  });

  it('fires nothing for a paused workflow, and owes nothing on resume', async () => {
    const paused = await publishedWorkflow(org.api, projectId, [nodes.schedule('p', '0 0 1 1 *')]);
    const active = await publishedWorkflow(org.api, projectId, [nodes.schedule('p', '0 0 1 1 *')]);
    const pause = await org.api.POST('/api/v1/workflows/{id}/pause', { params: { path: { id: paused } } });
    expect(pause.response.status).toBe(200);
    const { rows } = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM workflow.schedules WHERE workflow_id = $1',
      [paused],
    );
    expect(rows[0]!.n).toBe(0);

    // Even a row that a racing rebuild left behind does not fire while the workflow is paused.
    const due = new Date(Math.floor(Date.now() / 1000) * 1000 - 5000);
    await db.query(
      `INSERT INTO workflow.schedules (workflow_id, trigger_node_id, organization_id, version, cron, time_zone, next_run_at)
       VALUES ($1, 'p', $2, 1, '0 0 1 1 *', 'UTC', $3)`,
      [paused, org.organizationId, due],
    );
    await makeDue([active], due);
    await advancedPast([active], due);
    expect(startsFor(`schedule:${active}:p:${due.toISOString()}`)).toHaveLength(1);
    expect(starts.filter((start) => start.data.workflowId === paused)).toEqual([]);
    await db.query('DELETE FROM workflow.schedules WHERE workflow_id = $1', [paused]);

    const resumed = await org.api.POST('/api/v1/workflows/{id}/resume', { params: { path: { id: paused } } });
    expect(resumed.response.status).toBe(200);
    const next = (await workflowOf(org.api, paused)).data!.nextRunAt!;
    expect(Date.parse(next)).toBeGreaterThan(Date.now());
  });

  it('skips a due time the scheduler reaches too late, and schedules the next one', async () => {
    const workflowId = await publishedWorkflow(org.api, projectId, [nodes.schedule('late', '0 0 1 1 *')]);
    const due = new Date(Date.now() - 2 * 3_600_000);
    await makeDue([workflowId], due);
    await advancedPast([workflowId], due);
    expect(startsFor(`schedule:${workflowId}:late:${due.toISOString()}`)).toEqual([]);
  });

  it('answers the run target: the live version, the draft, not_published and workflow_not_found', async () => {
    const principal = { organizationId: org.organizationId, userId: null, keyId: null, role: 'admin' };
    const created = await org.api.POST('/api/v1/projects/{projectId}/workflows', {
      params: { path: { projectId } },
      body: { name: 'Target', diagram: { nodes: [nodes.trigger('t', { kind: 'manual' })], edges: [] } },
    });
    const { id: workflowId, diagram } = expectData(created, 201);

    const unpublished = await request<RunTarget>(WorkflowSubjects.runTarget.bare, principal, {
      workflowId,
      draft: false,
    });
    expect(unpublished).toMatchObject({ ok: false, error: { status: 409, code: 'not_published' } });
    const draftOnly = await request<RunTarget>(WorkflowSubjects.runTarget.bare, principal, {
      workflowId,
      draft: true,
    });
    expect(draftOnly).toEqual({
      ok: true,
      data: {
        workflowId,
        workflowName: 'Target',
        projectId,
        version: null,
        timeZone: 'UTC',
        diagram,
        pausedAt: null,
      },
    });

    await publishWorkflow(org.api, workflowId, { timeZone: 'Asia/Tokyo' });
    const draft = { nodes: [nodes.trigger('n')], edges: [] };
    const onWorkflow = { params: { path: { id: workflowId } } };
    await org.api.PATCH('/api/v1/workflows/{id}', { ...onWorkflow, body: { diagram: draft } });
    await org.api.POST('/api/v1/workflows/{id}/pause', onWorkflow);
    const pausedAt = (await workflowOf(org.api, workflowId)).data!.pausedAt;

    const live = await request<RunTarget>(WorkflowSubjects.runTarget.bare, principal, {
      workflowId,
      draft: false,
    });
    expect(live).toEqual({
      ok: true,
      data: expect.objectContaining({
        version: 1,
        timeZone: 'Asia/Tokyo',
        diagram,
        pausedAt,
      }),
    });
    const neverPublished = await createWorkflow(
      org.api,
      projectId,
      { nodes: [nodes.trigger('t')], edges: [] },
      {
        name: 'Draft only',
        publish: false,
      },
    );
    const many = await request<RunTargetsReply>(WorkflowSubjects.runTargets.bare, principal, {
      workflows: [
        { workflowId },
        { workflowId, knownVersion: 1 },
        { workflowId: neverPublished },
        { workflowId: randomUUID() },
        { workflowId: 'nope' },
      ],
    });
    expect(many).toEqual({
      ok: true,
      data: {
        targets: [
          expect.objectContaining({ workflowId, version: 1, diagram, pausedAt, diagramLeftOut: false }),
          expect.objectContaining({ workflowId, version: 1, diagram: null, diagramLeftOut: false }),
          {
            workflowId: neverPublished,
            error: { code: 'not_published', message: expect.stringContaining('never been published') },
          },
          expect.objectContaining({ error: expect.objectContaining({ code: 'workflow_not_found' }) }),
          { workflowId: 'nope', error: { code: 'workflow_not_found', message: 'No workflow with id nope.' } },
        ],
      },
    });
    const ofDraft = await request<RunTarget>(WorkflowSubjects.runTarget.bare, principal, {
      workflowId,
      draft: true,
    });
    expect(ofDraft).toEqual({
      ok: true,
      data: expect.objectContaining({ version: null, timeZone: 'Asia/Tokyo', diagram: draft }),
    });

    const outsider = { ...principal, organizationId: other.organizationId };
    for (const [who, id] of [
      [outsider, workflowId],
      [principal, randomUUID()],
      [principal, 'nope'],
    ] as const) {
      const missing = await request<RunTarget>(WorkflowSubjects.runTarget.bare, who, {
        workflowId: id,
        draft: true,
      });
      expect(missing).toMatchObject({ ok: false, error: { status: 404, code: 'workflow_not_found' } });
    }
  });

  it("deletes the workflows of a project when catalog asks, and only that organization's", async () => {
    const principal = { organizationId: org.organizationId, userId: null, keyId: null, role: 'admin' };
    const project = await createProject(org.api, 'Doomed');
    const doomed = await publishedWorkflow(org.api, project, [nodes.schedule('d', '0 9 * * *')]);
    const outsider = { ...principal, organizationId: other.organizationId };
    expect(
      await request(WorkflowSubjects.deleteForProject.bare, outsider, { projectId: project }, catalogNats),
    ).toEqual({
      ok: true,
      data: { deleted: 0 },
    });
    expect((await workflowOf(org.api, doomed)).response.status).toBe(200);
    expect(
      await request(WorkflowSubjects.deleteForProject.bare, principal, { projectId: project }, catalogNats),
    ).toEqual({
      ok: true,
      data: { deleted: 1 },
    });
    expect((await workflowOf(org.api, doomed)).response.status).toBe(404);
  });

  it('fires a schedule when the real clock reaches it, once', async () => {
    const key = `schedule:${everyMinute.workflowId}:minute:${new Date(everyMinute.due).toISOString()}`;
    await waitFor(() => (startsFor(key).length > 0 ? true : undefined), {
      timeoutMs: Math.max(0, Date.parse(everyMinute.due) - Date.now()) + 15_000,
      intervalMs: 200,
      what: `the run due at ${everyMinute.due}`,
    });
    await advancedPast([everyMinute.workflowId], new Date(everyMinute.due));
    expect(startsFor(key)).toHaveLength(1);
    const next = (await workflowOf(org.api, everyMinute.workflowId)).data!.nextRunAt!;
    expect(Date.parse(next) - Date.parse(everyMinute.due)).toBeGreaterThanOrEqual(60_000);
  }, 90_000);
});
