import {
  type ApiClient,
  chainOf,
  createOrganization,
  createProject,
  createWorkflow,
  expectData,
  nodes,
  type OrganizationFixture,
  runReaches,
  startRun,
  TestStack,
  waitFor,
} from '#testing';
import pg from 'pg';

/**
 * Finding and acting on many runs (docs/runs.md): the filters of a workflow's runs and of the
 * organization's, pages across filtered lists, their 400s, a bulk cancel over 50 runs followed to
 * `complete` with the runner killed midway, and a bulk replay. A stack of its own: the runner is
 * killed mid-operation, and operations are paced fast (a tick every 200 ms, 5 runs each).
 */
const OPERATIONS_ENV = {
  OPERATIONS_TICK_MS: '200',
  OPERATIONS_BATCH: '5',
  OPERATIONS_LEASE_MS: '1500',
  RUNNER_LEASE_MS: '2000',
};

const DAY = 86_400_000;
/** The smallest UUIDv7 of a millisecond, as the runner makes ids: old runs are written with old ids. */
const oldId = (ms: number, n: number) => {
  const hex = ms.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-${n.toString(16).padStart(12, '0')}`;
};

describe('run lists and bulk operations', () => {
  let stack: TestStack;
  let org: OrganizationFixture;
  let other: OrganizationFixture;
  let api: ApiClient;
  let db: pg.Client;
  let quick: string;
  let slow: string;
  const waiting: string[] = [];
  const completed: string[] = [];

  beforeAll(async () => {
    stack = await TestStack.start({
      ...OPERATIONS_ENV,
      RATE_LIMIT_PER_HOUR: '100000',
      ORGANIZATION_RATE_LIMIT_PER_HOUR: '100000',
    });
    org = await createOrganization(stack.description);
    other = await createOrganization(stack.description);
    api = org.api;
    const projectId = await createProject(api, 'Lists');
    quick = await createWorkflow(api, projectId, chainOf(nodes.trigger('t')), { name: 'Quick' });
    slow = await createWorkflow(api, projectId, chainOf(nodes.trigger('t'), nodes.delay('wait', 3600)), {
      name: 'Slow',
    });
    for (let i = 0; i < 6; i++) {
      completed.push(expectData(await startRun(api, quick, { input: `q${i}` }), 201).id);
    }
    for (let batch = 0; batch < 5; batch++) {
      const started = await Promise.all(
        Array.from({ length: 10 }, (_, i) => startRun(api, slow, { input: `s${batch}-${i}` })),
      );
      waiting.push(...started.map((answer) => expectData(answer, 201).id));
    }
    await Promise.all(waiting.map((id) => runReaches(api, id, ['waiting'])));
    db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
    // Three runs of 40 days ago (they read `unknown`), started by the schedule, with ids of their time.
    for (let n = 1; n <= 3; n++) {
      const at = Date.now() - 40 * DAY + n * 1000;
      await db.query(
        `INSERT INTO runner.runs (id, organization_id, workflow_id, workflow_name, project_id, version, trigger,
           trigger_node_id, status, principal, input, diagram, time_zone, created_at)
         SELECT $1, organization_id, workflow_id, workflow_name, project_id, version, 'schedule', 't', 'complete',
           principal, '', diagram, time_zone, $2 FROM runner.runs WHERE id = $3`,
        [oldId(at, n), new Date(at), completed[0]],
      );
    }
  }, 180_000);

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  const workflowRuns = async (id: string, query: Record<string, unknown>) =>
    expectData(
      await api.GET('/api/v1/workflows/{id}/runs', {
        params: { path: { id }, query: { limit: 100, ...query } },
      }),
      200,
    ).data;

  const organizationRuns = async (query: Record<string, unknown>, client = api) =>
    expectData(await client.GET('/api/v1/runs', { params: { query: { limit: 100, ...query } } }), 200).data;

  it("filters a workflow's runs by status, `unknown` meaning older than 30 days", async () => {
    expect((await workflowRuns(slow, { status: ['waiting'] })).length).toBe(50);
    expect((await workflowRuns(slow, { status: ['complete'] })).length).toBe(0);
    expect((await workflowRuns(quick, { status: ['complete'] })).map((run) => run.id).sort()).toEqual(
      [...completed].sort(),
    );
    const unknown = await workflowRuns(quick, { status: ['unknown'] });
    expect(unknown.map((run) => run.status)).toEqual(['unknown', 'unknown', 'unknown']);
    expect((await workflowRuns(quick, { status: ['complete', 'unknown'] })).length).toBe(9);
  });

  it('filters by trigger and by creation time, alone and together', async () => {
    expect((await workflowRuns(quick, { trigger: 'schedule' })).length).toBe(3);
    expect((await workflowRuns(quick, { trigger: 'api' })).length).toBe(6);
    const dayAgo = new Date(Date.now() - DAY).toISOString();
    expect((await workflowRuns(quick, { createdAfter: dayAgo })).length).toBe(6);
    expect((await workflowRuns(quick, { createdBefore: dayAgo })).length).toBe(3);
    expect(
      (await workflowRuns(quick, { createdBefore: dayAgo, trigger: 'schedule', status: ['unknown'] })).length,
    ).toBe(3);
    expect((await workflowRuns(quick, { createdAfter: dayAgo, trigger: 'schedule' })).length).toBe(0);
  });

  it("lists the organization's runs, by workflow and filters, and none of another organization's", async () => {
    expect((await organizationRuns({})).length).toBe(59);
    expect((await organizationRuns({ workflowId: quick })).length).toBe(9);
    expect((await organizationRuns({ workflowId: slow, status: ['waiting'], trigger: 'api' })).length).toBe(
      50,
    );
    expect(await organizationRuns({}, other.api)).toEqual([]);
    expect(await organizationRuns({ workflowId: slow }, other.api)).toEqual([]);
  });

  it('pages across a filtered list, newest first, nothing skipped or repeated', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = expectData(
        await api.GET('/api/v1/runs', {
          params: { query: { status: ['waiting', 'unknown'], limit: 7, ...(cursor ? { cursor } : {}) } },
        }),
        200,
      );
      seen.push(...page.data.map((run) => run.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen.length).toBe(53);
    expect(new Set(seen).size).toBe(53);
    expect([...seen].sort().reverse()).toEqual(seen);
  });

  it.each([
    ['status', 'status=bogus'],
    ['trigger', 'trigger=webhook'],
    ['createdAfter', 'createdAfter=yesterday'],
    ['createdAfter', 'createdAfter=2026-11-21'],
    ['createdBefore', 'createdBefore=2026-11-21T10:00:00'],
    ['limit', 'limit=0'],
    ['cursor', 'cursor=nope'],
  ])('answers 400 invalid_request on %s (%s)', async (path, query) => {
    for (const url of [`/api/v1/runs?${query}`, `/api/v1/workflows/${quick}/runs?${query}`]) {
      const answer = await api.raw.get<{
        error: { code: string; details: { issues: Array<{ path: string }> } };
      }>(url);
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('invalid_request');
      expect(answer.body.error.details.issues.map((issue) => issue.path)).toContain(path);
    }
  });

  it('refuses a bulk action that is not cancel or rerun, and a bad filter', async () => {
    for (const body of [
      { action: 'pause', filter: {} },
      { action: 'cancel' },
      { action: 'cancel', filter: { status: ['nope'] } },
      { action: 'cancel', filter: { createdAfter: 'today' } },
    ]) {
      const answer = await api.raw.post<{ error: { code: string } }>('/api/v1/runs/bulk', body);
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('invalid_request');
    }
  });

  it('cancels 50 runs in bulk, resumed by a new runner after the first is killed, each run once', async () => {
    const accepted = await api.POST('/api/v1/runs/bulk', {
      body: { action: 'cancel', filter: { workflowId: slow, status: ['waiting'] }, reason: 'bulk test' },
    });
    const operation = expectData(accepted, 202);
    expect(operation).toMatchObject({ action: 'cancel', status: 'running', matched: 50, done: 0, failed: 0 });
    const read = async (client = api) =>
      client.GET('/api/v1/operations/{id}', { params: { path: { id: operation.id } } });

    // Another organization cannot read it.
    expect((await read(other.api)).response.status).toBe(404);

    await waitFor(
      async () => {
        const now = expectData(await read(), 200);
        return now.done + now.failed >= 10 ? true : undefined;
      },
      { timeoutMs: 20_000, what: 'the operation to make progress' },
    );
    await stack.processes.get('runner')!.kill('SIGKILL');
    await stack.startService('runner', OPERATIONS_ENV);

    const progress: number[] = [];
    const finished = await waitFor(
      async () => {
        const now = expectData(await read(), 200);
        progress.push(now.done + now.failed);
        return now.status === 'complete' ? now : undefined;
      },
      { timeoutMs: 60_000, what: 'the operation to complete' },
    );
    expect(finished.matched).toBe(50);
    expect(finished.done + finished.failed).toBe(50);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    // Each run is one target, settled once.
    const { rows } = await db.query<{ target_id: string; state: string }>(
      'SELECT target_id, state FROM runner.operation_targets WHERE operation_id = $1',
      [operation.id],
    );
    expect(rows.map((row) => row.target_id).sort()).toEqual([...waiting].sort());
    expect(rows.every((row) => row.state === 'done' || row.state === 'failed')).toBe(true);
    // Each run cancelled once: a second cancel of a run would have been refused (`run_not_active`)
    // and counted `failed`.
    expect(finished).toMatchObject({ done: 50, failed: 0, failures: [] });
    for (const id of waiting) {
      const run = expectData(await api.GET('/api/v1/runs/{id}', { params: { path: { id } } }), 200);
      expect(run).toMatchObject({ status: 'terminated', error: expect.stringMatching(/: bulk test$/) });
    }
  }, 120_000);

  it('accepts a bulk replay of a trigger, by outcome and time, followed like any operation', async () => {
    const accepted = await api.POST('/api/v1/workflows/{id}/events/replay', {
      params: { path: { id: quick } },
      body: { triggerNodeId: 't', outcome: 'error', after: new Date(Date.now() - DAY).toISOString() },
    });
    const operation = expectData(accepted, 202);
    // The quick workflow's trigger is an API trigger: no event reached it.
    expect(operation).toMatchObject({ action: 'replay', workflowId: quick, matched: 0, status: 'complete' });
    const read = expectData(
      await api.GET('/api/v1/operations/{id}', { params: { path: { id: operation.id } } }),
      200,
    );
    expect(read).toMatchObject({ id: operation.id, action: 'replay', status: 'complete' });

    const bad = await api.raw.post<{ error: { code: string } }>(`/api/v1/workflows/${quick}/events/replay`, {
      triggerNodeId: 't',
      before: 'last week',
    });
    expect(bad.status).toBe(400);
    const foreign = await other.api.raw.post<{ error: { code: string } }>(
      `/api/v1/workflows/${quick}/events/replay`,
      { triggerNodeId: 't' },
    );
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('workflow_not_found');
  });

  // Last: it adds runs to the quick workflow, which the tests above count.
  it('reruns the matching runs in bulk: one new run naming each, counted done', async () => {
    const dayAgo = new Date(Date.now() - DAY).toISOString();
    const filter = { workflowId: quick, status: ['complete' as const], createdAfter: dayAgo };
    const matching = (await organizationRuns(filter)).map((run) => run.id);
    expect(matching.sort()).toEqual([...completed].sort());
    const accepted = expectData(
      await api.POST('/api/v1/runs/bulk', { body: { action: 'rerun', filter } }),
      202,
    );
    expect(accepted).toMatchObject({ action: 'rerun', matched: completed.length });
    const done = await waitFor(
      async () => {
        const now = expectData(
          await api.GET('/api/v1/operations/{id}', { params: { path: { id: accepted.id } } }),
          200,
        );
        return now.status === 'complete' ? now : undefined;
      },
      { timeoutMs: 30_000, what: 'the bulk rerun to complete' },
    );
    expect(done).toMatchObject({ done: completed.length, failed: 0 });
    const reruns = (await organizationRuns({ workflowId: quick, createdAfter: accepted.createdAt })).map(
      (run) => run.id,
    );
    const rerunOf = await Promise.all(
      reruns.map(
        async (id) =>
          expectData(await api.GET('/api/v1/runs/{id}', { params: { path: { id } } }), 200).rerunOf,
      ),
    );
    expect(rerunOf.sort()).toEqual([...completed].sort());
  });
});
