import { DIAGRAM_ID_MAX_LENGTH } from '#contracts';
import {
  chainOf,
  createDatabaseIn,
  createOrganization,
  createProject,
  createWorkflow,
  edge,
  type ErrorBody,
  finished,
  invalidNode,
  nodes,
  type OrganizationFixture,
  publishWorkflow,
  rowsOf,
  runningStack,
  runReaches,
  runToEnd,
  startRun,
  type StartRunBody,
  statusOf,
  stepOf,
  templateProbe,
  type TestNode,
  type WorkflowRun,
} from '#testing';
import pg from 'pg';

const stack = runningStack();

describe('runs', () => {
  let org: OrganizationFixture;
  let other: OrganizationFixture;
  let projectId: string;
  let db: pg.Client;

  beforeAll(async () => {
    [org, other] = await Promise.all([createOrganization(stack), createOrganization(stack)]);
    projectId = await createProject(org.api, 'Runs');
    db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
  });

  it('starts the live version from its only trigger and answers at once with the queued run', async () => {
    const drawn = [
      nodes.trigger('t'),
      nodes.condition('c', [{ left: '{{trigger.n}}', operator: 'greater_than', right: '1' }]),
    ];
    const workflowId = await createWorkflow(org.api, projectId, {
      nodes: drawn,
      edges: [edge('e1', 't', 'c')],
    });

    const started = await startRun(org.api, workflowId, { input: '{"n": 5}' });
    expect(started.response.status).toBe(201);
    expect(started.response.headers.get('idempotent-replayed')).toBeNull();
    expect(started.data).toEqual({
      id: expect.any(String),
      workflowId,
      version: 1,
      trigger: 'api',
      triggerNodeId: 't',
      // Accepted: queued for a runner, or (a runner had a free slot) already executing or even
      // complete, since a run of conditions takes a fraction of a millisecond.
      status: expect.stringMatching(/^(queued|running|complete)$/),
      createdBy: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      input: '{"n": 5}',
      reply: started.data!.status === 'complete' ? 'true' : null,
      error: null,
      steps: expect.any(Array),
      diagram: { nodes: drawn, edges: [edge('e1', 't', 'c')] },
    });
    expect(started.data!.steps[0]).toEqual({
      nodeId: 't',
      status: 'done',
      via: [],
      input: null,
      output: { payload: '{"n": 5}' },
      error: null,
      ms: 0,
      startedAt: started.data!.createdAt,
    });

    // A run that finished before its answer says so: never `running` with every step done.
    if (started.data!.steps.length === 2 && stepOf(started.data!, 'c')!.status === 'done') {
      expect(started.data).toMatchObject({ status: 'complete', reply: 'true' });
    }

    const run = await finished(org.api, started.data!.id);
    expect(run).toMatchObject({ status: 'complete', reply: 'true', error: null });
    expect(stepOf(run, 'c')).toMatchObject({ status: 'done', via: ['e1'], output: { result: 'true' } });

    // No body at all: the only trigger with an empty payload.
    const bare = await startRun(org.api, workflowId);
    expect(bare.response.status).toBe(201);
    expect(bare.data).toMatchObject({ input: '', triggerNodeId: 't', trigger: 'api' });
    expect((await finished(org.api, bare.data!.id)).reply).toBe('false');
  });

  it('walks trigger → condition → two branches: done and skipped steps, via, templates and reply', async () => {
    const drawn = [
      nodes.trigger('t'),
      nodes.condition('check', [{ left: '{{trigger.amount}}', operator: 'greater_than', right: '100' }]),
      nodes.condition('big', [{ left: '{{trigger.customer.name}}', operator: 'starts_with', right: 'A' }]),
      nodes.condition('small', [{ left: '{{nodes.check.result}}', operator: 'equals', right: 'false' }]),
      nodes.condition('notify', [{ left: '{{trigger.items.1}}', operator: 'is_not_empty' }]),
    ];
    const edges = [
      edge('e-check', 't', 'check'),
      edge('e-big', 'check', 'big', 'true'),
      edge('e-small', 'check', 'small', 'false'),
      edge('e-big-yes', 'big', 'notify', 'true'),
      edge('e-small-yes', 'small', 'notify', 'true'),
    ];
    const workflowId = await createWorkflow(org.api, projectId, { nodes: drawn, edges });

    const large = await runToEnd(org.api, workflowId, {
      input: JSON.stringify({ amount: 250, customer: { name: 'Ada' }, items: ['a', 'b'] }),
    });
    expect(large.status).toBe('complete');
    expect(large.steps.map((step) => [step.nodeId, step.status])).toEqual([
      ['t', 'done'],
      ['check', 'done'],
      ['big', 'done'],
      ['small', 'skipped'],
      ['notify', 'done'],
    ]);
    expect(stepOf(large, 'check')).toMatchObject({
      via: ['e-check'],
      input: JSON.stringify({
        match: 'all',
        conditions: [{ left: '250', operator: 'greater_than', right: '100' }],
      }),
      output: { result: 'true' },
      error: null,
    });
    expect(stepOf(large, 'big')).toMatchObject({ via: ['e-big'], output: { result: 'true' } });
    expect(JSON.parse(stepOf(large, 'big')!.input!).conditions[0].left).toBe('Ada');
    expect(stepOf(large, 'small')).toMatchObject({ via: [], input: null, output: null, ms: null });
    expect(stepOf(large, 'notify')).toMatchObject({ via: ['e-big-yes'], output: { result: 'true' } });
    expect(JSON.parse(stepOf(large, 'notify')!.input!).conditions[0].left).toBe('b');
    for (const step of large.steps.filter((one) => one.status === 'done')) {
      expect(step.ms).toEqual(expect.any(Number));
      expect(Date.parse(step.startedAt)).toBeGreaterThanOrEqual(Date.parse(large.createdAt));
    }
    expect(large.reply).toBe('true');

    const small = await runToEnd(org.api, workflowId, { input: JSON.stringify({ amount: 5, customer: {} }) });
    expect(small.steps.map((step) => [step.nodeId, step.status])).toEqual([
      ['t', 'done'],
      ['check', 'done'],
      ['big', 'skipped'],
      ['small', 'done'],
      ['notify', 'done'],
    ]);
    expect(stepOf(small, 'small')).toMatchObject({ via: ['e-small'], output: { result: 'true' } });
    expect(stepOf(small, 'notify')).toMatchObject({ via: ['e-small-yes'], output: { result: 'false' } });
    expect(small.reply).toBe('false');
  });

  it('runs independent branches and replies with the text of every node the run ended on', async () => {
    const drawn = [
      nodes.trigger('t'),
      nodes.condition('left', [{ left: '{{trigger}}', operator: 'contains', right: 'x' }]),
      nodes.condition('right', [{ left: '{{trigger}}', operator: 'contains', right: 'y' }]),
    ];
    const workflowId = await createWorkflow(org.api, projectId, {
      nodes: drawn,
      edges: [edge('a', 't', 'left'), edge('b', 't', 'right')],
    });
    const run = await runToEnd(org.api, workflowId, { input: 'plain text with x' });
    expect(run.status).toBe('complete');
    expect(run.reply).toBe('true\n\nfalse');

    // A node without text (a delay) adds nothing; the trigger alone replies with its payload.
    const lone = await createWorkflow(org.api, projectId, { nodes: [nodes.trigger('only')], edges: [] });
    expect((await runToEnd(org.api, lone, { input: 'echo me' })).reply).toBe('echo me');
  });

  it('runs the draft with draft: true and answers not_published without it', async () => {
    const workflowId = await createWorkflow(
      org.api,
      projectId,
      {
        nodes: [nodes.trigger('t'), nodes.condition('c', [{ left: 'a', operator: 'equals', right: 'a' }])],
        edges: [edge('e', 't', 'c')],
      },
      { publish: false },
    );
    const refused = await startRun(org.api, workflowId, {});
    expect(refused.response.status).toBe(409);
    expect(refused.error?.error.code).toBe('not_published');

    const draft = await startRun(org.api, workflowId, { draft: true });
    expect(draft.response.status).toBe(201);
    expect(draft.data!.version).toBeNull();
    expect((await finished(org.api, draft.data!.id)).status).toBe('complete');
  });

  it('needs triggerNodeId when there are several triggers, and lists them', async () => {
    const drawn = [
      nodes.trigger('hook', { kind: 'api', label: 'From the API' }),
      nodes.trigger('daily', { kind: 'schedule', label: 'Every day', cron: '0 9 * * *' }),
      nodes.condition('c', [{ left: '{{trigger}}', operator: 'is_empty' }]),
    ];
    const workflowId = await createWorkflow(org.api, projectId, {
      nodes: drawn,
      edges: [edge('e1', 'hook', 'c'), edge('e2', 'daily', 'c')],
    });
    const refused = await startRun(org.api, workflowId, {});
    expect(refused.response.status).toBe(400);
    expect(refused.error?.error).toMatchObject({
      code: 'trigger_required',
      details: {
        triggers: [
          { id: 'hook', label: 'From the API' },
          { id: 'daily', label: 'Every day' },
        ],
      },
    });
    const notATrigger = await startRun(org.api, workflowId, { triggerNodeId: 'c' });
    expect(notATrigger.response.status).toBe(400);
    expect(notATrigger.error?.error.code).toBe('trigger_required');

    // Any kind of trigger may start an API run; only the chosen trigger's edges fire.
    const started = await startRun(org.api, workflowId, { triggerNodeId: 'daily' });
    expect(started.response.status).toBe(201);
    expect(started.data).toMatchObject({ triggerNodeId: 'daily', trigger: 'api' });
    const run = await finished(org.api, started.data!.id);
    expect(run.steps.map((step) => step.nodeId)).toEqual(['daily', 'c']);
    expect(stepOf(run, 'c')!.via).toEqual(['e2']);
  });

  it(`takes a trigger node id of ${DIAGRAM_ID_MAX_LENGTH} characters and refuses a longer triggerNodeId`, async () => {
    const longest = 't'.repeat(DIAGRAM_ID_MAX_LENGTH);
    const workflowId = await createWorkflow(org.api, projectId, {
      nodes: [nodes.trigger(longest), nodes.trigger('other')],
      edges: [],
    });
    const started = await startRun(org.api, workflowId, { triggerNodeId: longest });
    expect(started.response.status).toBe(201);
    expect(started.data!.triggerNodeId).toBe(longest);

    const refused = await startRun(org.api, workflowId, { triggerNodeId: `${longest}t` });
    expect(refused.response.status).toBe(400);
    expect(refused.error?.error).toMatchObject({
      code: 'invalid_request',
      details: {
        issues: [{ path: 'triggerNodeId', message: expect.stringContaining(`${DIAGRAM_ID_MAX_LENGTH}`) }],
      },
    });
  });

  it('validates the body and the input length', async () => {
    const workflowId = await createWorkflow(org.api, projectId, chainOf(nodes.trigger('t')));
    const longest = await startRun(org.api, workflowId, { input: 'x'.repeat(100_000) });
    expect(longest.response.status).toBe(201);
    expect(longest.data!.input).toHaveLength(100_000);
    // Characters are Unicode code points, counted the same by the gateway and the runner: 100,000
    // emoji are 200,000 UTF-16 units, and still within the limit on both.
    const emoji = '\u{1F600}'.repeat(100_000);
    const wide = await startRun(org.api, workflowId, { input: emoji });
    expect(wide.response.status).toBe(201);
    expect(wide.data!.input).toBe(emoji);

    // Bodies the document refuses: sent as they are, past the typed client.
    for (const body of [
      { input: 'x'.repeat(100_001) },
      { input: `${emoji}x` },
      { input: 5 },
      { draft: 'yes' },
      { triggerNodeId: '' },
    ]) {
      const refused = await org.api.raw.post<ErrorBody>(`/api/v1/workflows/${workflowId}/runs`, body);
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('invalid_request');
      expect(refused.body.error.details?.issues?.length).toBeGreaterThan(0);
    }
  });

  it('answers invalid_workflow for a diagram that cannot run', async () => {
    const workflowId = await createWorkflow(
      org.api,
      projectId,
      {
        nodes: [nodes.trigger('t'), invalidNode('c', 'condition')],
        edges: [edge('e', 't', 'c')],
      },
      { publish: false },
    );
    const refused = await startRun(org.api, workflowId, { draft: true });
    expect(refused.response.status).toBe(400);
    expect(refused.error?.error.code).toBe('invalid_workflow');
    expect(refused.error?.error.details?.issues).toEqual(
      expect.arrayContaining([expect.objectContaining({ nodeId: 'c' })]),
    );
  });

  it('still accepts API runs while the workflow is paused', async () => {
    const workflowId = await createWorkflow(org.api, projectId, chainOf(nodes.trigger('t')));
    const paused = await org.api.POST('/api/v1/workflows/{id}/pause', {
      params: { path: { id: workflowId } },
    });
    expect(paused.response.status).toBe(200);
    expect((await runToEnd(org.api, workflowId, { input: 'while paused' })).status).toBe('complete');
  });

  it('runs the version live at each start: the next start after a publish or a delete sees it', async () => {
    const check = (right: string) =>
      nodes.condition('c', [{ left: '{{trigger}}', operator: 'equals', right }]);
    const workflowId = await createWorkflow(org.api, projectId, {
      nodes: [nodes.trigger('t'), check('one')],
      edges: [edge('e', 't', 'c')],
    });
    // The runner now holds version 1; each start still asks which version is live.
    const first = await runToEnd(org.api, workflowId, { input: 'two' });
    expect(first).toMatchObject({ version: 1, reply: 'false' });

    const changed = await org.api.PATCH('/api/v1/workflows/{id}', {
      params: { path: { id: workflowId } },
      body: {
        diagram: { nodes: [nodes.trigger('t'), check('two')], edges: [edge('e', 't', 'c')] },
      },
    });
    expect(changed.response.status).toBe(200);
    // An edited draft does not change what a start runs until it is published.
    expect(await runToEnd(org.api, workflowId, { input: 'two' })).toMatchObject({
      version: 1,
      reply: 'false',
    });
    await publishWorkflow(org.api, workflowId);
    const second = await runToEnd(org.api, workflowId, { input: 'two' });
    expect(second).toMatchObject({ version: 2, reply: 'true' });
    expect(stepOf(second, 'c')!.input).toContain('"right":"two"');
    // Another organization never gets the version held for this one.
    expect(await statusOf(startRun(other.api, workflowId, {}))).toBe(404);

    const deleted = await org.api.DELETE('/api/v1/workflows/{id}', { params: { path: { id: workflowId } } });
    expect(deleted.response.status).toBe(200);
    const gone = await startRun(org.api, workflowId, {});
    expect(gone.response.status).toBe(404);
    expect(gone.error?.error.code).toBe('workflow_not_found');
  });

  it('gives back the count of a start refused after it was counted', async () => {
    const free = await createOrganization(stack, { plan: 'free' });
    const usage = async () => (await free.api.GET('/api/v1/billing')).data!.usage.runs;
    const project = await createProject(free.api, 'p');
    const unpublished = await createWorkflow(free.api, project, chainOf(nodes.trigger('t')), {
      publish: false,
    });
    const broken = await createWorkflow(
      free.api,
      project,
      {
        nodes: [nodes.trigger('t'), invalidNode('c', 'condition')],
        edges: [edge('e', 't', 'c')],
      },
      { publish: false },
    );
    const twoTriggers = await createWorkflow(free.api, project, {
      nodes: [nodes.trigger('a'), nodes.trigger('b')],
      edges: [],
    });
    // Catalog counts each of these while workflow is asked for the target; each is refused after.
    expect((await startRun(free.api, unpublished, {})).error?.error.code).toBe('not_published');
    expect((await startRun(free.api, broken, { draft: true })).error?.error.code).toBe('invalid_workflow');
    expect((await startRun(free.api, twoTriggers, {})).error?.error.code).toBe('trigger_required');
    expect(await statusOf(startRun(free.api, '00000000-0000-7000-8000-000000000000', {}))).toBe(404);
    expect(await usage()).toBe(0);
    expect(await statusOf(startRun(free.api, twoTriggers, { triggerNodeId: 'a' }))).toBe(201);
    expect(await usage()).toBe(1);
  });

  it('answers workflow_not_found and run_not_found for unknown or foreign ids', async () => {
    const workflowId = await createWorkflow(org.api, projectId, chainOf(nodes.trigger('t')));
    const run = await runToEnd(org.api, workflowId);
    for (const id of ['01a1fda9-ac47-73ca-aacb-8e38ce781792', 'not-an-id']) {
      const path = { params: { path: { id } } };
      expect(
        (await org.api.POST('/api/v1/workflows/{id}/runs', { ...path, body: {} })).error?.error.code,
      ).toBe('workflow_not_found');
      expect((await org.api.GET('/api/v1/workflows/{id}/runs', path)).error?.error.code).toBe(
        'workflow_not_found',
      );
    }
    const foreignStart = await startRun(other.api, workflowId, {});
    expect(foreignStart.response.status).toBe(404);
    expect(foreignStart.error?.error.code).toBe('workflow_not_found');
    const foreignList = await other.api.GET('/api/v1/workflows/{id}/runs', {
      params: { path: { id: workflowId } },
    });
    expect(foreignList.response.status).toBe(404);

    for (const [api, id] of [
      [other.api, run.id],
      [org.api, '01a1fda9-ac47-73ca-aacb-8e38ce781792'],
      [org.api, 'nope'],
    ] as const) {
      const missing = await api.GET('/api/v1/runs/{id}', { params: { path: { id } } });
      expect(missing.response.status).toBe(404);
      expect(missing.error?.error.code).toBe('run_not_found');
    }
  });

  it('lists run summaries newest first, a page at a time', async () => {
    const workflowId = await createWorkflow(org.api, projectId, chainOf(nodes.trigger('t')));
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) ids.push((await startRun(org.api, workflowId, {})).data!.id);
    const first = await org.api.GET('/api/v1/workflows/{id}/runs', {
      params: { path: { id: workflowId }, query: { limit: 2 } },
    });
    expect(first.response.status).toBe(200);
    expect(first.data!.data.map((run) => run.id)).toEqual([ids[2], ids[1]]);
    expect(first.data!.data[0]).toEqual({
      id: ids[2],
      workflowId,
      version: 1,
      trigger: 'api',
      triggerNodeId: 't',
      status: expect.any(String),
      createdBy: null,
      createdAt: expect.any(String),
    });
    const second = await org.api.GET('/api/v1/workflows/{id}/runs', {
      params: { path: { id: workflowId }, query: { limit: 2, cursor: first.data!.nextCursor! } },
    });
    expect(second.data).toEqual({ data: [expect.objectContaining({ id: ids[0] })], nextCursor: null });
    const empty = await org.api.GET('/api/v1/workflows/{id}/runs', {
      params: { path: { id: workflowId }, query: { limit: 0 } },
    });
    expect(empty.response.status).toBe(400);
  });

  it('answers the first run again for a repeated Idempotency-Key, counting it once', async () => {
    const workflowId = await createWorkflow(org.api, projectId, chainOf(nodes.trigger('t')));
    const usage = async () => (await org.api.GET('/api/v1/billing')).data!.usage.runs;
    const before = await usage();
    const key = { 'Idempotency-Key': `order-${Date.now()}` };
    const first = await startRun(org.api, workflowId, { input: 'first' }, key);
    expect(first.response.status).toBe(201);
    expect(first.response.headers.get('idempotent-replayed')).toBeNull();
    const again = await startRun(org.api, workflowId, { input: 'first' }, key);
    expect(again.response.status).toBe(201);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data).toMatchObject({ id: first.data!.id, input: 'first' });
    expect(await usage()).toBe(before + 1);

    const fresh = await startRun(org.api, workflowId, {}, { 'Idempotency-Key': `other-${Date.now()}` });
    expect(fresh.data!.id).not.toBe(first.data!.id);
    // The key belongs to the organization: another one starts its own run with it.
    const theirs = await createWorkflow(
      other.api,
      await createProject(other.api, 'p'),
      chainOf(nodes.trigger('t')),
    );
    const otherRun = await startRun(other.api, theirs, {}, key);
    expect(otherRun.response.status).toBe(201);
    expect(otherRun.response.headers.get('idempotent-replayed')).toBeNull();

    // After 24 hours the key starts a new run.
    await db.query(`UPDATE runner.runs SET created_at = now() - interval '25 hours' WHERE id = $1`, [
      first.data!.id,
    ]);
    const later = await startRun(org.api, workflowId, {}, key);
    expect(later.response.status).toBe(201);
    expect(later.response.headers.get('idempotent-replayed')).toBeNull();
    expect(later.data!.id).not.toBe(first.data!.id);
  });

  it('refuses a repeated Idempotency-Key sent with another body or to another workflow', async () => {
    const drawn = [nodes.trigger('t'), nodes.trigger('u')];
    const workflowId = await createWorkflow(org.api, projectId, { nodes: drawn, edges: [] });
    const otherWorkflow = await createWorkflow(org.api, projectId, { nodes: drawn, edges: [] });
    const usage = async () => (await org.api.GET('/api/v1/billing')).data!.usage.runs;
    const key = { 'Idempotency-Key': `reused-${Date.now()}` };
    const body = { input: '{"order": 7}', triggerNodeId: 't' };
    const first = await startRun(org.api, workflowId, body, key);
    expect(first.response.status).toBe(201);
    const before = await usage();

    const replayed = await startRun(org.api, workflowId, { ...body }, key);
    expect(replayed.response.status).toBe(201);
    expect(replayed.response.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.data!.id).toBe(first.data!.id);

    for (const changed of [
      { ...body, input: '{"order": 8}' },
      { ...body, input: '{"order":7}' },
      { ...body, triggerNodeId: 'u' },
      { ...body, draft: true },
    ]) {
      const refused = await startRun(org.api, workflowId, changed, key);
      expect({ changed, status: refused.response.status, error: refused.error?.error }).toEqual({
        changed,
        status: 422,
        error: {
          code: 'idempotency_key_reused',
          message: expect.stringMatching(/different body/),
          details: { reason: 'other_request' },
        },
      });
    }
    const elsewhere = await startRun(org.api, otherWorkflow, body, key);
    expect(elsewhere.response.status).toBe(422);
    expect(elsewhere.error?.error).toEqual({
      code: 'idempotency_key_reused',
      message: expect.stringMatching(/another workflow/),
      details: { reason: 'other_workflow' },
    });

    // Nothing was started or counted for the refused requests, and the key still replays.
    expect(await org.api.listAll('/api/v1/workflows/{id}/runs', { path: { id: otherWorkflow } })).toEqual([]);
    expect(
      (await org.api.listAll('/api/v1/workflows/{id}/runs', { path: { id: workflowId } })).map(
        (run) => run.id,
      ),
    ).toEqual([first.data!.id]);
    expect(await usage()).toBe(before);
    expect((await startRun(org.api, workflowId, body, key)).data!.id).toBe(first.data!.id);
  });

  it('counts each run once against the plan and refuses runs past it with plan_limit_reached', async () => {
    const free = await createOrganization(stack, { plan: 'free' });
    const project = await createProject(free.api, 'p');
    const workflowId = await createWorkflow(free.api, project, chainOf(nodes.trigger('t')));
    expect(await statusOf(startRun(free.api, workflowId, {}))).toBe(201);
    const billing = (await free.api.GET('/api/v1/billing')).data!;
    expect(billing.usage.runs).toBe(1);
    const limit = billing.limits.runs;
    // Use up the month's runs without making a thousand requests.
    await db.query(`UPDATE catalog.run_usage SET runs = $2 WHERE organization_id = $1`, [
      free.organizationId,
      limit,
    ]);
    const refused = await startRun(free.api, workflowId, {});
    expect(refused.response.status).toBe(402);
    expect(refused.error?.error).toMatchObject({
      code: 'plan_limit_reached',
      details: { resource: 'runs', limit },
    });
    const listed = await free.api.GET('/api/v1/workflows/{id}/runs', {
      params: { path: { id: workflowId } },
    });
    expect(listed.data!.data).toHaveLength(1);
  });

  it("lets exactly one of two starts racing for the month's last run win", async () => {
    const free = await createOrganization(stack, { plan: 'free' });
    const project = await createProject(free.api, 'p');
    const workflowId = await createWorkflow(free.api, project, chainOf(nodes.trigger('t')));
    expect(await statusOf(startRun(free.api, workflowId, {}))).toBe(201);
    const limit = (await free.api.GET('/api/v1/billing')).data!.limits.runs;
    await db.query(`UPDATE catalog.run_usage SET runs = $2 WHERE organization_id = $1`, [
      free.organizationId,
      limit - 1,
    ]);
    const racing = await Promise.all([
      startRun(free.api, workflowId, {}),
      startRun(free.api, workflowId, {}),
    ]);
    expect(racing.map((answer) => answer.response.status).sort()).toEqual([201, 402]);
    expect((await free.api.GET('/api/v1/billing')).data!.usage.runs).toBe(limit);
    expect(await free.api.listAll('/api/v1/workflows/{id}/runs', { path: { id: workflowId } })).toHaveLength(
      2,
    );
  });

  it('retries a failing step after its backoff, then errors the run with the step error', async () => {
    const drawn = [
      nodes.trigger('t'),
      nodes.condition('flaky', [{ left: 'x', operator: 'matches', right: '{{trigger.pattern}}' }], {
        retry: { attempts: 2, backoffSeconds: 1 },
      }),
      nodes.condition('after', [{ left: 'x', operator: 'is_empty' }]),
    ];
    const workflowId = await createWorkflow(org.api, projectId, {
      nodes: drawn,
      edges: [edge('e1', 't', 'flaky'), edge('e2', 'flaky', 'after', 'true')],
    });
    const started = await startRun(org.api, workflowId, { input: '{"pattern": "("}' });
    const startedAt = Date.now();
    const waiting = await runReaches(org.api, started.data!.id, ['waiting'], {
      what: 'the run to wait for its retry',
    });
    expect(stepOf(waiting, 'flaky')).toMatchObject({
      status: 'waiting',
      error: expect.stringMatching(/regular expression/),
    });

    const run = await finished(org.api, started.data!.id);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_500);
    expect(run.status).toBe('errored');
    expect(run.error).toMatch(
      /^Node "flaky": condition 1 \(matches\): "\(" is not a regular expression RE2 accepts/,
    );
    expect(run.reply).toBeNull();
    expect(stepOf(run, 'flaky')).toMatchObject({ status: 'error', error: run.error });
    expect(stepOf(run, 'after')).toBeUndefined();
    const attempts = await db.query(
      'SELECT attempt FROM runner.run_steps WHERE run_id = $1 AND node_id = $2',
      [run.id, 'flaky'],
    );
    expect(attempts.rows[0].attempt).toBe(3);
  });

  it('errors a run at the first failing step when the node has no retry', async () => {
    const drawn = [nodes.trigger('t'), nodes.delay('wait', { until: '{{trigger.when}}' })];
    const workflowId = await createWorkflow(org.api, projectId, {
      nodes: drawn,
      edges: [edge('e', 't', 'wait')],
    });
    const run = await runToEnd(org.api, workflowId, { input: '{"when": "soon"}' });
    expect(run).toMatchObject({ status: 'errored', error: expect.stringContaining('"soon"') });
    expect(stepOf(run, 'wait')).toMatchObject({ status: 'error', error: run.error, ms: expect.any(Number) });
  });

  it('waits durably through a delay and goes on when it is due', async () => {
    const drawn = [
      nodes.trigger('t'),
      nodes.delay('wait', { seconds: 2 }),
      nodes.condition('after', [{ left: '{{nodes.wait.until}}', operator: 'is_not_empty' }]),
    ];
    const workflowId = await createWorkflow(org.api, projectId, {
      nodes: drawn,
      edges: [edge('e1', 't', 'wait'), edge('e2', 'wait', 'after')],
    });
    const started = await startRun(org.api, workflowId, {});
    const waiting = await runReaches(org.api, started.data!.id, ['waiting'], { what: 'the run to wait' });
    const due = stepOf(waiting, 'wait');
    expect(due).toMatchObject({ status: 'waiting', output: null });
    const run = await finished(org.api, started.data!.id);
    expect(run.status).toBe('complete');
    const woke = stepOf(run, 'wait')!;
    expect(Date.parse(woke.output!.until!)).toBeGreaterThanOrEqual(Date.parse(woke.startedAt) + 2_000);
    expect(woke.ms).toBeGreaterThanOrEqual(2_000);
    expect(stepOf(run, 'after')).toMatchObject({ status: 'done', output: { result: 'true' } });
  });

  it('goes through more waits than a run may be picked up without settling (RUNNER_MAX_CLAIMS)', async () => {
    // Eleven one-second delays one after another: each wake is a pick-up, and a wait is progress,
    // not an interruption, so the run is not stopped as "interrupted 10 times".
    const delays = Array.from({ length: 11 }, (_, index) => nodes.delay(`wait${index}`, 1));
    const workflowId = await createWorkflow(org.api, projectId, chainOf(nodes.trigger('t'), ...delays));
    const run = await runToEnd(org.api, workflowId, {}, { timeoutMs: 60_000 });
    expect({ status: run.status, error: run.error }).toEqual({ status: 'complete', error: null });
  }, 90_000);

  it('runs independent branches at the same time and joins them via both edges', async () => {
    const drawn = [
      nodes.trigger('t'),
      nodes.delay('left', { seconds: 2 }),
      nodes.delay('right', { seconds: 2 }),
      nodes.condition('join', [
        { left: '{{nodes.left.until}}{{nodes.right.until}}', operator: 'is_not_empty' },
      ]),
    ];
    const workflowId = await createWorkflow(org.api, projectId, {
      nodes: drawn,
      edges: [
        edge('a', 't', 'left'),
        edge('b', 't', 'right'),
        edge('c', 'left', 'join'),
        edge('d', 'right', 'join'),
      ],
    });
    const started = await startRun(org.api, workflowId, {});
    // Both branches wait at the same time: neither waited for the other to finish.
    const waiting = await runReaches(org.api, started.data!.id, ['waiting'], { what: 'the run to wait' });
    expect([stepOf(waiting, 'left')!.status, stepOf(waiting, 'right')!.status]).toEqual([
      'waiting',
      'waiting',
    ]);
    expect(stepOf(waiting, 'join')).toBeUndefined();
    const run = await finished(org.api, started.data!.id);
    expect(run.status).toBe('complete');
    const join = stepOf(run, 'join');
    expect(join).toMatchObject({ status: 'done', via: ['c', 'd'], output: { result: 'true' } });
  });

  it('terminates the unfinished runs of a deleted workflow and keeps them readable', async () => {
    const workflowId = await createWorkflow(org.api, projectId, {
      nodes: [nodes.trigger('t'), nodes.delay('long', { seconds: 3600 })],
      edges: [edge('e', 't', 'long')],
    });
    const done = await runToEnd(
      org.api,
      await createWorkflow(org.api, projectId, chainOf(nodes.trigger('t'))),
    );
    const started = await startRun(org.api, workflowId, {});
    await runReaches(org.api, started.data!.id, ['waiting'], { what: 'the run to wait' });
    const deleted = await org.api.DELETE('/api/v1/workflows/{id}', { params: { path: { id: workflowId } } });
    expect(deleted.response.status).toBe(200);
    const run = (await org.api.GET('/api/v1/runs/{id}', { params: { path: { id: started.data!.id } } }))
      .data!;
    expect(run.status).toBe('terminated');
    expect(stepOf(run, 'long')).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/terminated/),
    });
    expect((await org.api.GET('/api/v1/runs/{id}', { params: { path: { id: done.id } } })).data!.status).toBe(
      'complete',
    );
  });

  describe('database steps', () => {
    let databaseId: string;

    /** The rows one statement answers on the database of these tests. */
    const runSql = async (sql: string) => (await rowsOf(org.api, databaseId, [{ sql, params: [] }]))[0];

    /** A workflow of a trigger and `step`, run to its end. */
    async function runAlone(step: TestNode, body?: StartRunBody): Promise<WorkflowRun> {
      const workflowId = await createWorkflow(org.api, projectId, {
        nodes: [nodes.trigger('t'), step],
        edges: [edge('e', 't', step.id)],
      });
      return runToEnd(org.api, workflowId, body);
    }

    beforeAll(async () => {
      databaseId = await createDatabaseIn(org.api, `runs-${Date.now()}`);
      await runSql('CREATE TABLE orders (id INTEGER, customer TEXT, total DOUBLE)');
    });

    it('a workflow whose database step inserts templated values that a later query reads back', async () => {
      const drawn = [
        nodes.trigger('t'),
        nodes.database('save', databaseId, 'INSERT INTO orders VALUES (?, ?, ?)', [
          '{{trigger.id}}',
          '{{trigger.customer.name}}',
          '{{trigger.total}}',
        ]),
        nodes.database('read', databaseId, 'SELECT customer, total FROM orders WHERE id = ?', [
          '{{trigger.id}}',
        ]),
        nodes.condition('check', [
          { left: '{{nodes.read.rows.0.customer}}', operator: 'equals', right: 'Ada' },
        ]),
      ];
      const workflowId = await createWorkflow(org.api, projectId, {
        nodes: drawn,
        edges: [edge('e1', 't', 'save'), edge('e2', 'save', 'read'), edge('e3', 'read', 'check')],
      });
      const run = await runToEnd(org.api, workflowId, {
        input: JSON.stringify({ id: 7, customer: { name: 'Ada' }, total: 12.5 }),
      });
      expect(run.status).toBe('complete');
      expect(stepOf(run, 'save')).toMatchObject({
        status: 'done',
        input: JSON.stringify({
          databaseId,
          sql: 'INSERT INTO orders VALUES (?, ?, ?)',
          params: ['7', 'Ada', '12.5'],
        }),
        output: { rowsWritten: '1', rowCount: '0', rows: '[]' },
      });
      expect(stepOf(run, 'read')!.output).toEqual({
        rows: JSON.stringify([{ customer: 'Ada', total: 12.5 }]),
        rowCount: '1',
        rowsWritten: '0',
      });
      expect(run.reply).toBe('true');
      expect(await runSql('SELECT id, customer, total FROM orders')).toEqual([[7, 'Ada', 12.5]]);
    });

    it('fails the step with the database engine message', async () => {
      const run = await runAlone(nodes.database('bad', databaseId, 'SELECT * FROM no_such_table'));
      expect(run.status).toBe('errored');
      expect(run.error).toMatch(/no_such_table does not exist/);
      expect(stepOf(run, 'bad')).toMatchObject({ status: 'error', error: run.error });
    });

    it('fails a step whose params pass their limit, and one whose rows pass the output limit, keeping neither', async () => {
      const tooMuchIn = await runAlone(
        nodes.database('params', databaseId, 'SELECT ? AS a', ['{{trigger}}{{trigger}}{{trigger}}']),
        { input: 'x'.repeat(100_000) },
      );
      expect(tooMuchIn.status).toBe('errored');
      // Refused before the step was recorded running: the query was never sent.
      expect(stepOf(tooMuchIn, 'params')).toMatchObject({
        status: 'error',
        input: null,
        output: null,
        error:
          'Node "params": params[0] would be more than 262144 bytes (256 KiB) with its templates filled in; that is the most one property may be.',
      });

      const tooMuchOut = await runAlone(
        nodes.database('rows', databaseId, "SELECT repeat('x', 3000000) AS big"),
      );
      expect(tooMuchOut.status).toBe('errored');
      // rows [{"big":"x…"}] (3,000,012 bytes), rowCount 1, rowsWritten 0.
      expect(stepOf(tooMuchOut, 'rows')).toMatchObject({
        status: 'error',
        output: null,
        error: `Node "rows": its output is 3000014 bytes; a step may keep at most 2097152 bytes (2 MiB) of output.`,
      });
      expect(JSON.stringify(tooMuchOut).length).toBeLessThan(10_000);
    });

    it('retries a failing step and goes on once an attempt succeeds', async () => {
      const workflowId = await createWorkflow(org.api, projectId, {
        nodes: [
          nodes.trigger('t'),
          nodes.database('late', databaseId, 'SELECT count(*) AS n FROM arrives_later', [], {
            retry: { attempts: 3, backoffSeconds: 1 },
          }),
        ],
        edges: [edge('e', 't', 'late')],
      });
      const started = await startRun(org.api, workflowId, {});
      await runReaches(org.api, started.data!.id, ['waiting'], { what: 'the first attempt to fail' });
      await runSql('CREATE TABLE arrives_later (x INTEGER)');
      const run = await finished(org.api, started.data!.id);
      expect(run).toMatchObject({ status: 'complete', error: null });
      expect(stepOf(run, 'late')).toMatchObject({ status: 'done', error: null, output: { rowCount: '1' } });
      const { rows } = await db.query('SELECT attempt FROM runner.run_steps WHERE run_id = $1', [run.id]);
      expect(rows.map((row) => row.attempt).sort()).toEqual([1, 2]);
    });
  });

  describe('bounded templates', () => {
    const probeError =
      'Node "c": conditions[0].left would be more than 262144 bytes (256 KiB) with its templates filled in; that is the most one property may be.';
    const input = 'x'.repeat(100_000);

    /**
     * A run read as a client reads it: GET, a wait, or its stream's `run` event, with the answer's
     * size, which is why it reads the bytes itself rather than through the typed client.
     */
    async function read(
      runId: string,
      how: 'get' | 'wait' | 'stream',
    ): Promise<{ bytes: number; run: WorkflowRun }> {
      const path = { get: '', wait: '?wait=5', stream: '/stream' }[how];
      const response = await fetch(`${stack.baseUrl}/api/v1/runs/${runId}${path}`, {
        headers: { authorization: `Bearer ${org.apiKey}` },
      });
      expect(response.status).toBe(200);
      const text = await response.text();
      if (how !== 'stream') return { bytes: Buffer.byteLength(text), run: JSON.parse(text) as WorkflowRun };
      // The run is final: the stream sends it whole, then `end`, and closes.
      const events = text.split('\n\n').filter((block) => block.startsWith('event: '));
      expect(events.map((block) => block.slice('event: '.length, block.indexOf('\n')))).toEqual([
        'run',
        'end',
      ]);
      const data = events[0]?.slice(events[0].indexOf('\ndata: ') + '\ndata: '.length) ?? '';
      return { bytes: Buffer.byteLength(text), run: JSON.parse(data) as WorkflowRun };
    }

    it("fails the issue's probe (200 × {{trigger}} of a 100 KB input) naming node and property, and answers its run whole at once", async () => {
      const probe = templateProbe();
      const workflowId = await createWorkflow(org.api, projectId, probe);
      const started = await startRun(org.api, workflowId, { input }, { Prefer: 'wait=10' });
      expect(started.response.status).toBe(201);
      expect(started.data).toMatchObject({ status: 'errored', error: probeError });
      const runId = started.data!.id;
      for (const how of ['get', 'wait', 'stream'] as const) {
        const { bytes, run } = await read(runId, how);
        expect(run).toMatchObject({ id: runId, status: 'errored', error: probeError, reply: null });
        // Nothing oversized was kept: the step failed before recording an input.
        expect(stepOf(run, 'c')).toMatchObject({
          status: 'error',
          input: null,
          output: null,
          error: probeError,
        });
        expect(stepOf(run, 't')!.output!.payload === input).toBe(true);
        // The input twice (the run's and the trigger's payload), and little else.
        expect(bytes).toBeLessThan(2 * input.length + 10_000);
      }
    });

    it('answers a run recorded before the limits (the 20 MB step input main stored) at once, its longest text cut', async () => {
      const probe = templateProbe();
      const workflowId = await createWorkflow(org.api, projectId, probe);
      const run = await runToEnd(org.api, workflowId, { input });
      await db.query(
        `UPDATE runner.run_steps SET input = repeat('x', 20000000) WHERE run_id = $1 AND node_id = 'c'`,
        [run.id],
      );
      for (const how of ['get', 'wait', 'stream'] as const) {
        const { bytes, run: answered } = await read(run.id, how);
        // One NATS message (8 MiB in the test stack), not a 503 after the gateway's 10 s.
        expect(bytes).toBeLessThan(8 * 1024 * 1024 + 1_000);
        const cut = stepOf(answered, 'c')!.input!;
        expect(cut.startsWith('xxxx')).toBe(true);
        expect(cut.endsWith('x … [cut: 20000000 characters in all]')).toBe(true);
        expect(cut.length).toBeGreaterThan(6_000_000);
        // Texts that fit are whole.
        expect(stepOf(answered, 't')!.output!.payload === input).toBe(true);
        expect(answered.input === input).toBe(true);
      }
    });
  });

  it('reads status unknown for a run older than 30 days and keeps its steps', async () => {
    const workflowId = await createWorkflow(org.api, projectId, chainOf(nodes.trigger('t')));
    const run = await runToEnd(org.api, workflowId, { input: 'old' });
    await db.query(`UPDATE runner.runs SET created_at = now() - interval '31 days' WHERE id = $1`, [run.id]);
    const old = (await org.api.GET('/api/v1/runs/{id}', { params: { path: { id: run.id } } })).data!;
    expect(old.status).toBe('unknown');
    expect(old.steps).toEqual(run.steps);
    const listed = (
      await org.api.GET('/api/v1/workflows/{id}/runs', { params: { path: { id: workflowId } } })
    ).data!.data;
    expect(listed[0]).toMatchObject({ id: run.id, status: 'unknown' });
  });
});
