import pg from 'pg';

import {
  chainOf,
  createConnection,
  createDraft,
  createOrganization,
  createProject,
  createWorkflow,
  expectData,
  finished,
  HttpTarget,
  nodes,
  type OrganizationFixture,
  publishWorkflow,
  runningStack,
  runsOf,
  startRun,
  type TestDiagram,
  type TestNode,
  waitFor,
  type WorkflowRun,
} from '#testing';

const stack = runningStack();

/** The input an error workflow's run gets (docs/workflows.md, "Error workflows"). */
interface ErrorInput {
  workflow: { id: string; name: string; version: number | null; projectId: string };
  run: {
    id: string;
    trigger: string;
    triggerNodeId: string | null;
    startedAt: string;
    input: string;
    inputTruncated: boolean;
    rolledBack: boolean;
  };
  failedStep: { nodeId: string; type: string; error: string; attempt: number } | null;
  error: string;
}

describe('error workflows (settings.errorWorkflowId)', () => {
  let org: OrganizationFixture;
  let other: OrganizationFixture;
  let projectId: string;

  /**
   * A step that fails whatever the input: a `matches` pattern RE2 refuses, templated so that publish
   * leaves it to the run.
   */
  const failing = (id: string): TestNode =>
    nodes.condition(id, [{ left: 'a', operator: 'matches', right: '{{trigger.never}}(?=a)' }]);
  const FAILING_INPUT = JSON.stringify({ order: 42 });

  /** A workflow that completes: what an error workflow does here is beside the point. */
  const handler = (name = 'On failure') =>
    createWorkflow(
      org.api,
      projectId,
      chainOf(nodes.trigger('t', { kind: 'manual' }), nodes.alwaysTrue('ok')),
      {
        name,
      },
    );

  const withErrorWorkflow = (diagram: TestDiagram, errorWorkflowId: string): TestDiagram => ({
    ...diagram,
    settings: { ...diagram.settings, errorWorkflowId },
  });

  const read = async (runId: string): Promise<WorkflowRun> =>
    expectData(await org.api.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } }), 200);

  /** Starts a run and answers it once final. */
  const runToFinal = async (workflowId: string, input: string) =>
    finished(org.api, expectData(await startRun(org.api, workflowId, { input }), 201).id, {
      timeoutMs: 30_000,
    });

  /** The failed run once the runner has handled its failure (`errorWorkflow` is written then). */
  const handled = (runId: string) =>
    waitFor(
      async () => {
        const run = await read(runId);
        return run.errorWorkflow === undefined ? undefined : run;
      },
      { what: `the error workflow of run ${runId} to be handled` },
    );

  const runIdsOf = async (workflowId: string) => (await runsOf(org.api, workflowId)).map((run) => run.id);

  beforeAll(async () => {
    [org, other] = await Promise.all([createOrganization(stack), createOrganization(stack)]);
    projectId = await createProject(org.api, 'Error workflows');
  });

  it('starts the error workflow once when a run fails, with an input describing the failure', async () => {
    const handlerId = await handler();
    const workflowId = await createWorkflow(
      org.api,
      projectId,
      withErrorWorkflow(
        chainOf(nodes.trigger('start'), nodes.alwaysTrue('check'), failing('parse')),
        handlerId,
      ),
      { name: 'Orders' },
    );
    const failed = await runToFinal(workflowId, FAILING_INPUT);
    expect(failed.status).toBe('errored');

    const { errorWorkflow } = await handled(failed.id);
    expect(errorWorkflow).toEqual({
      workflowId: handlerId,
      runId: expect.any(String),
      error: null,
      at: expect.any(String),
    });
    const errorRun = await finished(org.api, errorWorkflow!.runId!);
    expect(errorRun).toMatchObject({
      workflowId: handlerId,
      status: 'complete',
      trigger: 'event',
      triggerNodeId: 't',
      errorOfRunId: failed.id,
    });
    const input = JSON.parse(errorRun.input) as ErrorInput;
    expect(input).toEqual({
      workflow: { id: workflowId, name: 'Orders', version: 1, projectId },
      run: {
        id: failed.id,
        trigger: 'api',
        triggerNodeId: 'start',
        startedAt: failed.createdAt,
        input: FAILING_INPUT,
        inputTruncated: false,
        rolledBack: false,
      },
      failedStep: { nodeId: 'parse', type: 'condition', error: failed.error, attempt: 1 },
      error: failed.error,
    });
    // Its steps read the input as JSON, like any run's.
    expect(errorRun.steps[0]?.output).toEqual({ payload: errorRun.input });
    // Once: the error workflow has exactly that run, and the failed run itself is unchanged.
    expect(await runIdsOf(handlerId)).toEqual([errorRun.id]);
    // A start sent again with its key (as after a crash between the start and its record) answers
    // that run rather than making another: here sent through the API, with the same input.
    const again = await startRun(
      org.api,
      handlerId,
      { input: errorRun.input },
      { 'Idempotency-Key': `error-workflow:${failed.id}` },
    );
    expect(again.response.headers.get('Idempotent-Replayed')).toBe('true');
    expect(expectData(again, 201).id).toBe(errorRun.id);
    expect(await runIdsOf(handlerId)).toEqual([errorRun.id]);
    expect((await read(failed.id)).errorOfRunId).toBeUndefined();
  });

  it('starts it after a failed run has rolled back, saying so', async () => {
    const target = await HttpTarget.start();
    try {
      const { connectionId } = await createConnection(stack, org.organizationId, 'http');
      target.respond('/fails', { status: 500, body: { error: 'no stock' } });
      const handlerId = await handler();
      const workflowId = await createWorkflow(org.api, projectId, {
        ...chainOf(
          nodes.trigger('t'),
          nodes.httpCall('reserve', `${target.url}/reserve`, { connectionId, undoUrl: `${target.url}/undo` }),
          nodes.httpCall('charge', `${target.url}/fails`, { connectionId }),
        ),
        settings: { onError: 'rollback', errorWorkflowId: handlerId },
      });
      const failed = await runToFinal(workflowId, '{"order":7}');
      expect(failed.status).toBe('errored');
      expect(failed.steps.filter((step) => step.compensation).map((step) => step.nodeId)).toEqual([
        'reserve',
      ]);
      expect(target.requestsTo('/undo')).toHaveLength(1);

      const { errorWorkflow } = await handled(failed.id);
      const input = JSON.parse((await read(errorWorkflow!.runId!)).input) as ErrorInput;
      expect(input.run).toMatchObject({ id: failed.id, input: '{"order":7}', rolledBack: true });
      expect(input.failedStep).toMatchObject({ nodeId: 'charge', type: 'action', attempt: 1 });
      expect(input.failedStep?.error).toMatch(/answered 500/);
      expect(input.error).toBe(failed.error);
      expect(await runIdsOf(handlerId)).toEqual([errorWorkflow!.runId]);
    } finally {
      await target.stop();
    }
  });

  it('starts nothing more when the error workflow fails itself, even when each names the other', async () => {
    // A fails and names B; B fails too and names A. B's failure as A's error workflow starts nothing.
    const a = await createDraft(org.api, projectId, {
      name: 'A',
      diagram: chainOf(nodes.trigger('t'), failing('f')),
    });
    const b = await createWorkflow(
      org.api,
      projectId,
      withErrorWorkflow(chainOf(nodes.trigger('t', { kind: 'manual' }), failing('g')), a.id),
      { name: 'B' },
    );
    await org.api.PATCH('/api/v1/workflows/{id}', {
      params: { path: { id: a.id } },
      body: { diagram: withErrorWorkflow(chainOf(nodes.trigger('t'), failing('f')), b) },
    });
    await publishWorkflow(org.api, a.id);

    const failed = await runToFinal(a.id, FAILING_INPUT);
    const { errorWorkflow } = await handled(failed.id);
    const errorRun = await finished(org.api, errorWorkflow!.runId!);
    expect(errorRun).toMatchObject({ status: 'errored', errorOfRunId: failed.id, workflowId: b });

    const errorRunHandled = await handled(errorRun.id);
    expect(errorRunHandled.errorWorkflow).toEqual({
      workflowId: a.id,
      runId: null,
      error: { code: 'error_workflow_run', message: expect.stringContaining(failed.id) },
      at: expect.any(String),
    });
    expect(await runIdsOf(a.id)).toEqual([failed.id]);
    expect(await runIdsOf(b)).toEqual([errorRun.id]);
  });

  it('starts nothing for a failure inside an error workflow run, even a workflow it calls that names it', async () => {
    // A fails and names B; B calls A as a child run (which fails too). Without the mark carried to
    // the child, each child's failure would start B again, and B call A again, without end.
    const a = await createDraft(org.api, projectId, {
      name: 'A',
      diagram: chainOf(nodes.trigger('t'), failing('f')),
    });
    const b = await createWorkflow(
      org.api,
      projectId,
      chainOf(nodes.trigger('t', { kind: 'manual' }), nodes.callWorkflow('call', a.id)),
      { name: 'B', publish: false },
    );
    await org.api.PATCH('/api/v1/workflows/{id}', {
      params: { path: { id: a.id } },
      body: { diagram: withErrorWorkflow(chainOf(nodes.trigger('t'), failing('f')), b) },
    });
    await publishWorkflow(org.api, a.id);
    await publishWorkflow(org.api, b);

    const failed = await runToFinal(a.id, FAILING_INPUT);
    const { errorWorkflow } = await handled(failed.id);
    const errorRun = await finished(org.api, errorWorkflow!.runId!, { timeoutMs: 30_000 });
    expect(errorRun).toMatchObject({ status: 'errored', errorOfRunId: failed.id });

    const children = await runIdsOf(a.id);
    expect(children).toHaveLength(2);
    const child = await read(children.find((id) => id !== failed.id)!);
    expect(child).toMatchObject({ status: 'errored', parentRunId: errorRun.id, errorOfRunId: failed.id });
    // The child is a run of A, which names B: its failure is handled, and starts nothing.
    expect((await handled(child.id)).errorWorkflow).toMatchObject({
      workflowId: b,
      runId: null,
      error: { code: 'error_workflow_run', message: expect.stringContaining(failed.id) },
    });
    expect(await runIdsOf(a.id)).toHaveLength(2);
    expect(await runIdsOf(b)).toEqual([errorRun.id]);
  });

  it('records on the failed run why its error workflow could not start, and starts nothing', async () => {
    const unpublished = await createDraft(org.api, projectId, { name: 'Never published' });
    const paused = await handler('Paused');
    expect(
      (await org.api.POST('/api/v1/workflows/{id}/pause', { params: { path: { id: paused } } })).response
        .status,
    ).toBe(200);
    const deleted = await handler('Deleted');
    const cases: Array<[string, string]> = [
      [unpublished.id, 'not_published'],
      [paused, 'workflow_paused'],
      [deleted, 'workflow_not_found'],
    ];
    for (const [errorWorkflowId, code] of cases) {
      const workflowId = await createWorkflow(
        org.api,
        projectId,
        withErrorWorkflow(chainOf(nodes.trigger('t'), failing('f')), errorWorkflowId),
      );
      if (errorWorkflowId === deleted) {
        await org.api.DELETE('/api/v1/workflows/{id}', { params: { path: { id: deleted } } });
      }
      const failed = await runToFinal(workflowId, FAILING_INPUT);
      expect((await handled(failed.id)).errorWorkflow).toEqual({
        workflowId: errorWorkflowId,
        runId: null,
        error: { code, message: expect.any(String) },
        at: expect.any(String),
      });
    }
    expect(await runIdsOf(unpublished.id)).toEqual([]);
    expect(await runIdsOf(paused)).toEqual([]);
  });

  it('counts the error run against the plan: past it, the failed run records plan_limit_reached', async () => {
    const free = await createOrganization(stack, { plan: 'free' });
    const project = await createProject(free.api, 'p');
    const handlerId = await createWorkflow(free.api, project, chainOf(nodes.trigger('t')));
    const workflowId = await createWorkflow(
      free.api,
      project,
      withErrorWorkflow(chainOf(nodes.trigger('t'), failing('f')), handlerId),
    );
    // A first run makes the month's count; then only one run is left, which the failing run takes.
    await finished(free.api, expectData(await startRun(free.api, handlerId, {}), 201).id);
    const billing = expectData(await free.api.GET('/api/v1/billing'), 200);
    const db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
    try {
      await db.query(`UPDATE catalog.run_usage SET runs = $2 WHERE organization_id = $1`, [
        free.organizationId,
        billing.limits.runs - 1,
      ]);
    } finally {
      await db.end();
    }
    const failed = await finished(
      free.api,
      expectData(await startRun(free.api, workflowId, { input: FAILING_INPUT }), 201).id,
    );
    expect(failed.status).toBe('errored');
    const recorded = await waitFor(
      async () => {
        const { data } = await free.api.GET('/api/v1/runs/{id}', { params: { path: { id: failed.id } } });
        return data?.errorWorkflow;
      },
      { what: 'the error workflow of the failed run to be handled' },
    );
    expect(recorded).toEqual({
      workflowId: handlerId,
      runId: null,
      error: { code: 'plan_limit_reached', message: expect.any(String) },
      at: expect.any(String),
    });
    expect(await free.api.listAll('/api/v1/workflows/{id}/runs', { path: { id: handlerId } })).toHaveLength(
      1,
    );
  });

  it('starts nothing for a run that completes', async () => {
    const handlerId = await handler();
    const workflowId = await createWorkflow(
      org.api,
      projectId,
      withErrorWorkflow(chainOf(nodes.trigger('t'), nodes.alwaysTrue('ok')), handlerId),
    );
    const complete = await runToFinal(workflowId, '{}');
    expect(complete.status).toBe('complete');
    await endingHandled(complete.id);
    expect((await read(complete.id)).errorWorkflow).toBeUndefined();
    expect(await runIdsOf(handlerId)).toEqual([]);
  });

  describe('publish', () => {
    const publish = async (errorWorkflowId: string, id?: string) => {
      const draft = id
        ? { id }
        : await createDraft(org.api, projectId, {
            diagram: withErrorWorkflow(chainOf(nodes.trigger('t')), errorWorkflowId),
          });
      return org.api.POST('/api/v1/workflows/{id}/publish', { params: { path: { id: draft.id } } });
    };

    it('refuses an errorWorkflowId that is not a workflow of the organization, naming settings.errorWorkflowId', async () => {
      const foreignProject = await createProject(other.api, 'theirs');
      const foreign = await createWorkflow(other.api, foreignProject, chainOf(nodes.trigger('t')));
      for (const id of ['0199d5e4-0000-7000-8000-000000000001', 'not-an-id', foreign]) {
        const answer = await publish(id);
        expect(answer.response.status).toBe(400);
        expect(answer.error?.error).toMatchObject({
          code: 'invalid_workflow',
          details: {
            issues: [
              {
                path: 'settings.errorWorkflowId',
                message: `settings.errorWorkflowId: no workflow ${id} in this organization.`,
              },
            ],
          },
        });
      }
    });

    it('refuses the workflow itself, and a value that is not an id', async () => {
      const draft = await createDraft(org.api, projectId, { diagram: chainOf(nodes.trigger('t')) });
      await org.api.PATCH('/api/v1/workflows/{id}', {
        params: { path: { id: draft.id } },
        body: { diagram: withErrorWorkflow(chainOf(nodes.trigger('t')), draft.id) },
      });
      const itself = await publish(draft.id, draft.id);
      expect(itself.response.status).toBe(400);
      expect(itself.error?.error.details).toEqual({
        issues: [
          {
            path: 'settings.errorWorkflowId',
            message: expect.stringContaining('names this workflow itself'),
          },
        ],
      });
      const numeric = await createDraft(org.api, projectId, {
        diagram: { ...chainOf(nodes.trigger('t')), settings: { errorWorkflowId: 7 as unknown as string } },
      });
      const refused = await publish('', numeric.id);
      expect(refused.error?.error.details).toEqual({
        issues: [
          { path: 'settings.errorWorkflowId', message: 'diagram.errorWorkflowId must be string or null' },
        ],
      });
    });

    it('publishes with an error workflow of the organization, or null', async () => {
      const handlerId = await handler();
      expect((await publish(handlerId)).response.status).toBe(201);
      const none = await createDraft(org.api, projectId, {
        diagram: { ...chainOf(nodes.trigger('t')), settings: { errorWorkflowId: null } },
      });
      expect((await publish('', none.id)).response.status).toBe(201);
    });
  });
});

/**
 * Waits until the runner has handled a run's end: its row in the run endings outbox (written in the
 * statement that ended the run, deleted once every handler succeeded) is gone.
 */
async function endingHandled(runId: string): Promise<void> {
  const db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
  await db.connect();
  try {
    // Watched, so its end was recorded: an end that was never recorded would pass for handled.
    const watched = await db.query<{ watch_end: boolean }>(
      `SELECT watch_end FROM runner.runs WHERE id = $1`,
      [runId],
    );
    expect(watched.rows).toEqual([{ watch_end: true }]);
    await waitFor(
      async () => {
        const { rowCount } = await db.query(`SELECT 1 FROM runner.run_endings WHERE run_id = $1`, [runId]);
        return rowCount === 0 ? true : undefined;
      },
      { what: `the end of run ${runId} to be handled` },
    );
  } finally {
    await db.end();
  }
}
