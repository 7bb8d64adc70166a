import {
  type ApiClient,
  chainOf,
  createOrganization,
  createProject,
  createWorkflow,
  nodes,
  type OrganizationFixture,
  runReaches,
  startRun,
  statusOf,
  TestStack,
  waitFor,
} from '#testing';
import pg from 'pg';

/**
 * Deletes that race run starts and workflow creates, a project of hundreds of workflows, and deletes
 * and schedules while the runner or the workflow service is down. Services are stopped and started,
 * so this file runs a stack of its own.
 */
const STACK_ENV = {
  RATE_LIMIT_PER_HOUR: '1000000',
  // Unfinished deletes are retried within a second here rather than after 30 s.
  PURGE_RETRY_MS: '1000',
  PURGE_INTERVAL_MS: '200',
  SCHEDULER_INTERVAL_MS: '200',
  // On a loaded test machine a slow answer must not hand a delete's purge to the sweep: the tests
  // check what a delete has done by the time it answers.
  DELETE_WAIT_MS: '8000',
};

/** Runs `work` over `items`, at most `concurrency` at a time, answers in the order of `items`. */
async function inParallel<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!);
      }
    }),
  );
  return results;
}

interface StartAnswer {
  status: number;
  code: string | undefined;
  message?: string;
  runId: string | undefined;
  /** Sent after the delete was answered. */
  late: boolean;
}

describe('deletes, run starts and schedules across services', () => {
  let stack: TestStack;
  let db: pg.Client;

  beforeAll(async () => {
    stack = await TestStack.start(STACK_ENV);
    db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  /** The rows of a statement on the stack's Postgres, as the type named. */
  const rows = async <T>(sql: string, params: unknown[] = []): Promise<T[]> =>
    (await db.query(sql, params)).rows as T[];

  /** Starts a run that waits an hour on its delay, and answers its id once it is waiting. */
  async function waitingRun(api: ApiClient, workflowId: string): Promise<string> {
    const started = await startRun(api, workflowId);
    expect(started.response.status).toBe(201);
    const runId = started.data!.id;
    await runReaches(api, runId, ['waiting'], { intervalMs: 50, what: `run ${runId} to wait` });
    return runId;
  }

  const waitsAnHour = () => chainOf(nodes.trigger('t'), nodes.delay('wait', 3600));

  /**
   * One round of starts racing a delete, in an organization of its own. Answers how many starts got
   * past the run target and were counted against the plan, but were refused when they recorded
   * their run because the workflow's runs had been terminated meanwhile: the race this is about.
   */
  async function deleteWhileStarting(org: OrganizationFixture): Promise<number> {
    const { api } = org;
    // A long chain of conditions executes in the runner between reading the run target and
    // recording the run (a sync match records the run at its first checkpoint), which gives the
    // delete a wide window to land in. The final delay keeps every recorded run unfinished, so a run
    // that is not `terminated` afterwards is one that outlived its workflow.
    const diagram = chainOf(
      nodes.trigger('t'),
      ...Array.from({ length: 150 }, (_, index) => nodes.alwaysTrue(`c${index}`)),
      nodes.delay('wait', 3600),
    );
    const workflowId = await createWorkflow(api, await createProject(api), diagram);

    const answers: StartAnswer[] = [];
    let deleted = false;
    const starters = Array.from({ length: 12 }, async () => {
      // Each starter goes on until a start it sent after the delete was answered is refused.
      for (;;) {
        const late = deleted;
        const started = await api.POST('/api/v1/workflows/{id}/runs', {
          params: { path: { id: workflowId } },
        });
        answers.push({
          status: started.response.status,
          code: started.error?.error.code,
          message: started.error?.error.message,
          runId: started.data?.id,
          late,
        });
        if (late || answers.length > 3_000) return;
      }
    });
    await waitFor(() => (answers.filter((answer) => answer.status === 201).length >= 24 ? true : undefined), {
      timeoutMs: 60_000,
      what: 'runs to start',
    });
    const removal = await api.DELETE('/api/v1/workflows/{id}', { params: { path: { id: workflowId } } });
    const [{ answered_at: answeredAt }] = await rows<{ answered_at: Date }>('SELECT now() AS answered_at');
    deleted = true;
    await Promise.all(starters);
    expect({ status: removal.response.status, body: removal.data }).toMatchObject({
      status: 200,
      body: { deleted: true },
    });

    // Every start was accepted or refused as the workflow being gone; those sent after the delete
    // was answered were all refused.
    expect(answers.filter((answer) => answer.status !== 201 && answer.code !== 'workflow_not_found')).toEqual(
      [],
    );
    expect(answers.filter((answer) => answer.late && answer.status !== 404)).toEqual([]);
    const accepted = answers.filter((answer) => answer.status === 201).map((answer) => answer.runId!);

    // Every run recorded is one that was answered, and it was terminated before the delete answered.
    const recorded = await rows<{ id: string; status: string; finished_at: Date }>(
      'SELECT id, status, finished_at FROM runner.runs WHERE workflow_id = $1 ORDER BY id',
      [workflowId],
    );
    expect(recorded.map((run) => run.id).sort()).toEqual([...accepted].sort());
    expect(recorded.filter((run) => run.status !== 'terminated')).toEqual([]);
    expect(recorded.filter((run) => run.finished_at > answeredAt)).toEqual([]);
    for (const runId of accepted.slice(0, 5)) {
      expect((await api.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } })).data!.status).toBe(
        'terminated',
      );
    }
    // Nor does any appear, or come back to life, later.
    await waitFor(
      async () => {
        const [left] = await rows<{ n: number }>(
          'SELECT count(*)::int AS n FROM workflow.workflows WHERE id = $1',
          [workflowId],
        );
        return left!.n === 0 ? true : undefined;
      },
      { what: 'the deleted workflow to be purged' },
    );
    const later = await rows<{ id: string; status: string }>(
      'SELECT id, status FROM runner.runs WHERE workflow_id = $1 ORDER BY id',
      [workflowId],
    );
    expect(later).toEqual(recorded.map(({ id }) => ({ id, status: 'terminated' })));

    const [{ counted }] = await rows<{ counted: number }>(
      'SELECT count(*)::int AS counted FROM catalog.counted_runs WHERE organization_id = $1',
      [org.organizationId],
    );
    return counted - recorded.length;
  }

  it('leaves no run going after a delete that raced concurrent starts', async () => {
    // The race is timing. Every round checks that no run outlived the workflow. A start refused at
    // the very end (it read the workflow before the delete and tried to record its run after the
    // termination) used to show as a count without a run; since such a start gives its count back,
    // it no longer shows there, so five rounds run and how many were refused is not asserted.
    for (let round = 0; round < 5; round += 1) {
      await deleteWhileStarting(await createOrganization(stack.description));
    }
  }, 300_000);

  it('deletes a project of hundreds of workflows at once, and every workflow and run with it', async () => {
    const { api } = await createOrganization(stack.description);
    const projectId = await createProject(api);
    const drafts = await inParallel(
      Array.from({ length: 400 }, (_, index) => index),
      16,
      () => createWorkflow(api, projectId, waitsAnHour(), { publish: false }),
    );
    const live = await inParallel([0, 1, 2], 3, () => createWorkflow(api, projectId, waitsAnHour()));
    const runIds = await Promise.all(live.map((workflowId) => waitingRun(api, workflowId)));

    // Workflows created while the project is deleted either fail or go with it.
    let deleting = true;
    const racing: string[] = [];
    const creators = Array.from({ length: 4 }, async () => {
      while (deleting) {
        const created = await api.POST('/api/v1/projects/{projectId}/workflows', {
          params: { path: { projectId } },
          body: { name: 'late' },
        });
        if (created.response.status === 201) racing.push(created.data!.id);
        else expect(created.error?.error.code).toBe('project_not_found');
      }
    });
    const began = Date.now();
    const removal = await api.DELETE('/api/v1/projects/{id}', { params: { path: { id: projectId } } });
    const took = Date.now() - began;
    deleting = false;
    await Promise.all(creators);
    expect({ status: removal.response.status, body: removal.data }).toMatchObject({
      status: 200,
      body: { deleted: true },
    });
    expect(took).toBeLessThan(5_000);

    expect(await statusOf(api.GET('/api/v1/projects/{id}', { params: { path: { id: projectId } } }))).toBe(
      404,
    );
    expect(
      await statusOf(api.GET('/api/v1/projects/{projectId}/workflows', { params: { path: { projectId } } })),
    ).toBe(404);
    const workflowIds = [...drafts, ...live, ...racing];
    const statuses = await inParallel(
      workflowIds,
      16,
      async (id) => (await api.GET('/api/v1/workflows/{id}', { params: { path: { id } } })).response.status,
    );
    expect(statuses.filter((status) => status !== 404)).toEqual([]);

    await waitFor(
      async () => {
        const [left] = await rows<{ workflows: number; projects: number }>(
          `SELECT (SELECT count(*)::int FROM workflow.workflows WHERE project_id = $1) AS workflows,
             (SELECT count(*)::int FROM catalog.projects WHERE id = $1) AS projects`,
          [projectId],
        );
        return left!.workflows === 0 && left!.projects === 0 ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: "the project's rows to go" },
    );
    const runs = await rows<{ status: string }>('SELECT status FROM runner.runs WHERE id = ANY($1)', [
      runIds,
    ]);
    expect(runs.map((run) => run.status)).toEqual(['terminated', 'terminated', 'terminated']);
    const versions = await rows<{ '?column?': number }>(
      'SELECT 1 FROM workflow.versions WHERE workflow_id = ANY($1)',
      [live],
    );
    expect(versions).toEqual([]);
  }, 300_000);

  describe('while the runner is down', () => {
    it('deletes a workflow at once and ends its runs when the runner is back; schedules fire once, late', async () => {
      const due = new Date(Math.floor(Date.now() / 1000) * 1000 - 1000);
      const { api } = await createOrganization(stack.description);
      const projectId = await createProject(api);
      const doomed = await createWorkflow(api, projectId, waitsAnHour());
      const runId = await waitingRun(api, doomed);
      const scheduled = await createWorkflow(api, projectId, chainOf(nodes.schedule('s', '0 0 1 1 *')));

      await stack.processes.get('runner')!.stop();
      try {
        const removal = await api.DELETE('/api/v1/workflows/{id}', { params: { path: { id: doomed } } });
        expect({ status: removal.response.status, body: removal.data }).toMatchObject({
          status: 200,
          body: { deleted: true },
        });
        expect(await statusOf(api.GET('/api/v1/workflows/{id}', { params: { path: { id: doomed } } }))).toBe(
          404,
        );
        const [marked] = await rows<{ deleted_at: Date | null }>(
          'SELECT deleted_at FROM workflow.workflows WHERE id = $1',
          [doomed],
        );
        expect(marked!.deleted_at).toEqual(expect.any(Date));

        // A due time the scheduler cannot send stays due, and is tried again.
        await db.query('UPDATE workflow.schedules SET next_run_at = $1 WHERE workflow_id = $2', [
          due,
          scheduled,
        ]);
        const workflowService = stack.processes.get('workflow')!;
        const attempts = () =>
          workflowService.output().split('scheduled run not started; retrying').length - 1;
        const before = attempts();
        await waitFor(() => (attempts() >= before + 2 ? true : undefined), {
          what: 'the scheduler to try the due time twice',
        });
        const [row] = await rows<{ next_run_at: Date }>(
          'SELECT next_run_at FROM workflow.schedules WHERE workflow_id = $1',
          [scheduled],
        );
        expect(row!.next_run_at).toEqual(due);
      } finally {
        await stack.startService('runner');
      }

      await waitFor(
        async () => {
          const [left] = await rows<{ n: number }>(
            'SELECT count(*)::int AS n FROM workflow.workflows WHERE id = $1',
            [doomed],
          );
          return left!.n === 0 ? true : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200, what: 'the deleted workflow to be purged' },
      );
      expect((await api.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } })).data!.status).toBe(
        'terminated',
      );

      await waitFor(
        async () => {
          const [row] = await rows<{ next_run_at: Date }>(
            'SELECT next_run_at FROM workflow.schedules WHERE workflow_id = $1',
            [scheduled],
          );
          return row!.next_run_at > new Date() ? true : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200, what: 'the schedule to move on' },
      );
      const fired = await rows<{ idempotency_key: string; status: string }>(
        'SELECT idempotency_key, status FROM runner.runs WHERE workflow_id = $1',
        [scheduled],
      );
      expect(fired.map((run) => run.idempotency_key)).toEqual([
        `schedule:${scheduled}:s:${due.toISOString()}`,
      ]);
    }, 180_000);
  });

  describe('while the workflow service is down', () => {
    it('deletes a project at once and its workflows once the service is back', async () => {
      const { api } = await createOrganization(stack.description);
      const projectId = await createProject(api);
      const workflowIds = await inParallel([0, 1, 2, 3, 4], 5, () =>
        createWorkflow(api, projectId, waitsAnHour(), { publish: false }),
      );

      await stack.processes.get('workflow')!.stop();
      try {
        const began = Date.now();
        const removal = await api.DELETE('/api/v1/projects/{id}', { params: { path: { id: projectId } } });
        expect({ status: removal.response.status, body: removal.data }).toMatchObject({
          status: 200,
          body: { deleted: true },
        });
        expect(Date.now() - began).toBeLessThan(5_000);
        expect(
          await statusOf(api.GET('/api/v1/projects/{id}', { params: { path: { id: projectId } } })),
        ).toBe(404);
        const [project] = await rows<{ deleted_at: Date | null }>(
          'SELECT deleted_at FROM catalog.projects WHERE id = $1',
          [projectId],
        );
        expect(project!.deleted_at).toEqual(expect.any(Date));
      } finally {
        await stack.startService('workflow');
      }

      await waitFor(
        async () => {
          const [left] = await rows<{ workflows: number; projects: number }>(
            `SELECT (SELECT count(*)::int FROM workflow.workflows WHERE project_id = $1) AS workflows,
               (SELECT count(*)::int FROM catalog.projects WHERE id = $1) AS projects`,
            [projectId],
          );
          return left!.workflows === 0 && left!.projects === 0 ? true : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200, what: "the project's rows to go" },
      );
      for (const id of workflowIds)
        expect(await statusOf(api.GET('/api/v1/workflows/{id}', { params: { path: { id } } }))).toBe(404);
      const created = await api.POST('/api/v1/projects/{projectId}/workflows', {
        params: { path: { projectId } },
        body: { name: 'too late' },
      });
      expect(created.response.status).toBe(404);
    }, 180_000);
  });
});
