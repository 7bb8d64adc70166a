import pg from 'pg';

import {
  chainOf,
  createDraft,
  createConnection,
  createOrganization,
  createProject,
  createWorkflow,
  edge,
  type ErrorBody,
  expectData,
  finished,
  type HeldPath,
  HttpTarget,
  nodes,
  type OrganizationFixture,
  runningStack,
  runReaches,
  type Schemas,
  startRun,
  stepOf,
  type TestDiagram,
  type TestNode,
  waitFor,
  type WithoutDefaults,
  type WorkflowRun,
} from '#testing';

const stack = runningStack();

describe('run control (extensions beyond the contract)', () => {
  let org: OrganizationFixture;
  let other: OrganizationFixture;
  let projectId: string;
  let connectionId: string;
  let target: HttpTarget;
  let paths = 0;

  const path = (name: string) => `/${name}-${(paths += 1)}`;

  /** A call the local app holds until `release()`: the step stays `running` meanwhile. */
  const hold = () => target.hold(path('hold'));

  /** An action calling the local app at `at`; `compensate` calls it at `undo` with the node's result. */
  const call = (id: string, at: string, undo?: string): TestNode =>
    nodes.httpCall(id, `${target.url}${at}`, {
      connectionId,
      ...(undo === undefined ? {} : { undoUrl: `${target.url}${undo}` }),
    });

  const callsTo = (at: string) => target.requestsTo(at).length;

  const workflow = (diagram: TestDiagram) => createWorkflow(org.api, projectId, diagram);

  const start = async (workflowId: string, input?: string) =>
    expectData(await startRun(org.api, workflowId, input === undefined ? {} : { input }), 201);

  const heldCallReached = (gate: HeldPath) =>
    waitFor(() => (callsTo(gate.path) >= 1 ? true : undefined), { what: `the call to ${gate.path}` });

  const cancel = (runId: string, body: WithoutDefaults<Schemas['CancelRunDto']> = {}) =>
    org.api.POST('/api/v1/runs/{id}/cancel', { params: { path: { id: runId } }, body });

  const rerun = (runId: string, body: { fromNodeId?: string; input?: string } = {}) =>
    org.api.POST('/api/v1/runs/{id}/rerun', { params: { path: { id: runId } }, body });

  const pause = (runId: string) =>
    org.api.POST('/api/v1/runs/{id}/pause', { params: { path: { id: runId } } });
  const resume = (runId: string) =>
    org.api.POST('/api/v1/runs/{id}/resume', { params: { path: { id: runId } } });

  const read = async (runId: string): Promise<WorkflowRun> =>
    expectData(await org.api.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } }), 200);

  const statuses = (run: WorkflowRun) =>
    run.steps.map((step) => [step.nodeId, step.status, ...(step.compensation ? ['compensation'] : [])]);

  beforeAll(async () => {
    [org, other] = await Promise.all([createOrganization(stack), createOrganization(stack)]);
    projectId = await createProject(org.api, 'Run control');
    target = await HttpTarget.start();
    ({ connectionId } = await createConnection(stack, org.organizationId, 'http'));
  });

  afterAll(async () => {
    await target?.stop();
  });

  describe('POST /runs/{id}/cancel', () => {
    it('terminates a running run, stops its step with who and why, and starts nothing after it', async () => {
      const gate = hold();
      const after = path('after');
      const workflowId = await workflow(
        chainOf(nodes.trigger('t'), call('slow', gate.path), call('next', after)),
      );
      const run = await start(workflowId);
      await heldCallReached(gate);

      const cancelled = await cancel(run.id, { reason: 'wrong deploy' });
      expect(cancelled.response.status).toBe(200);
      expect(cancelled.data).toMatchObject({ id: run.id, status: 'terminated' });
      // The organization's key asked: the message names it.
      const message = cancelled.data!.error!;
      expect(message).toMatch(/^Cancelled by API key \S+: wrong deploy$/);
      expect(stepOf(cancelled.data!, 'slow')).toMatchObject({ status: 'error', error: message });
      // The app's request was aborted, not left to run: the app sees its connection closed.
      await waitFor(() => target.requestsTo(gate.path)[0]?.abandonedAt, {
        what: 'the held call to be closed',
      });

      gate.release();
      // The held call's late answer changes nothing, and the next step never starts.
      const again = await org.api.GET('/api/v1/runs/{id}', {
        params: { path: { id: run.id }, query: { wait: 2 } },
      });
      expect(statuses(again.data!)).toEqual([
        ['t', 'done'],
        ['slow', 'error'],
      ]);
      expect(again.data!.status).toBe('terminated');
      expect(callsTo(after)).toBe(0);
    });

    it('answers run_not_active for a final run, and exactly one of two cancels at once wins', async () => {
      const gate = hold();
      const workflowId = await workflow(chainOf(nodes.trigger('t'), call('slow', gate.path)));
      const run = await start(workflowId);
      await heldCallReached(gate);
      const answers = await Promise.all([cancel(run.id), cancel(run.id)]);
      expect(answers.map((answer) => answer.response.status).sort()).toEqual([200, 409]);
      const refused = answers.find((answer) => answer.response.status === 409)!;
      expect(refused.error?.error).toMatchObject({
        code: 'run_not_active',
        details: { status: 'terminated' },
      });
      expect((await cancel(run.id)).error?.error.code).toBe('run_not_active');
      gate.release();
    });

    it('ends a waiting run at once, and its delay never wakes', async () => {
      const after = path('after');
      const workflowId = await workflow(
        chainOf(nodes.trigger('t'), nodes.delay('wait', 1), call('next', after)),
      );
      const run = await start(workflowId);
      await runReaches(org.api, run.id, ['waiting']);
      const cancelled = expectData(await cancel(run.id, { reason: 'not needed' }), 200);
      expect(cancelled.status).toBe('terminated');
      expect(stepOf(cancelled, 'wait')).toMatchObject({ status: 'error' });
      // Past the delay's due time (1 s) and a sweep or two, nothing woke it.
      await waitFor(() => (Date.now() - Date.parse(cancelled.createdAt) > 3_000 ? true : undefined), {
        what: 'the delay to fall due',
      });
      expect((await read(run.id)).status).toBe('terminated');
      expect(callsTo(after)).toBe(0);
    });

    it('ends in exactly one final status when it races the run completing, 20 times', async () => {
      const outcomes: string[] = [];
      for (let round = 0; round < 20; round += 1) {
        const gate = hold();
        const workflowId = await workflow(
          chainOf(nodes.trigger('t'), call('slow', gate.path), nodes.alwaysTrue('c')),
        );
        const run = await start(workflowId);
        await heldCallReached(gate);
        const racing = cancel(run.id);
        gate.release();
        const answer = await racing;
        const final = await finished(org.api, run.id);
        // A 200 means the cancel won; a 409 that the run completed first. Never both, never neither.
        if (answer.response.status === 200) {
          expect(final.status).toBe('terminated');
          expect(answer.data!.status).toBe('terminated');
        } else {
          expect(answer.response.status).toBe(409);
          expect(final.status).toBe('complete');
        }
        // And it stays so.
        expect((await read(run.id)).status).toBe(final.status);
        outcomes.push(final.status);
      }
      expect(outcomes).toHaveLength(20);
    });

    it("answers run_not_found for another organization's run and for an id that is no run", async () => {
      const gate = hold();
      const workflowId = await workflow(chainOf(nodes.trigger('t'), call('slow', gate.path)));
      const run = await start(workflowId);
      for (const attempt of [
        other.api.POST('/api/v1/runs/{id}/cancel', { params: { path: { id: run.id } }, body: {} }),
        cancel('not-a-run'),
        cancel('019ac0d3-8d2f-7000-8000-000000000000'),
      ]) {
        const refused = await attempt;
        expect(refused.response.status).toBe(404);
        expect(refused.error?.error.code).toBe('run_not_found');
      }
      expect((await read(run.id)).status).toBe('running');
      gate.release();
      expect((await finished(org.api, run.id)).status).toBe('complete');
    });

    it('refuses a reason over 1000 characters and a rollback that is not a boolean', async () => {
      const run = await start(await workflow(chainOf(nodes.trigger('t'))));
      for (const body of [{ reason: 'x'.repeat(1001) }, { rollback: 'yes' }]) {
        const refused = await org.api.raw.post<ErrorBody>(`/api/v1/runs/${run.id}/cancel`, body);
        expect({ status: refused.status, code: refused.body.error?.code }).toEqual({
          status: 400,
          code: 'invalid_request',
        });
      }
    });
  });

  describe('POST /runs/{id}/pause and /resume', () => {
    it('lets the running step finish, starts nothing new, then pauses; resume goes on', async () => {
      const gate = hold();
      const after = path('after');
      const workflowId = await workflow(
        chainOf(nodes.trigger('t'), call('slow', gate.path), call('next', after)),
      );
      const run = await start(workflowId);
      await heldCallReached(gate);

      const pausing = expectData(await pause(run.id), 200);
      expect(pausing.status).toBe('waitingForPause');
      // Pausing again asks for what is so.
      expect(expectData(await pause(run.id), 200).status).toBe('waitingForPause');
      gate.release();
      const paused = await runReaches(org.api, run.id, ['paused']);
      expect(statuses(paused)).toEqual([
        ['t', 'done'],
        ['slow', 'done'],
      ]);
      expect(callsTo(after)).toBe(0);
      expect((await resume(run.id)).response.status).toBe(200);
      const done = await finished(org.api, run.id);
      expect(done.status).toBe('complete');
      expect(statuses(done)).toEqual([
        ['t', 'done'],
        ['slow', 'done'],
        ['next', 'done'],
      ]);
      expect(callsTo(after)).toBe(1);
    });

    it('pauses a waiting run at once; a delay due meanwhile runs at resume', async () => {
      const workflowId = await workflow(
        chainOf(nodes.trigger('t'), nodes.delay('wait', 1), nodes.alwaysTrue('c')),
      );
      const run = await start(workflowId);
      await runReaches(org.api, run.id, ['waiting']);
      expect(expectData(await pause(run.id), 200).status).toBe('paused');
      await waitFor(() => (Date.now() - Date.parse(run.createdAt) > 3_000 ? true : undefined), {
        what: 'the delay to fall due',
      });
      expect((await read(run.id)).status).toBe('paused');
      expectData(await resume(run.id), 200);
      const done = await finished(org.api, run.id);
      expect(done.status).toBe('complete');
      expect(stepOf(done, 'wait')?.status).toBe('done');
    });

    it('answers run_not_paused to a resume of a run that is not paused, run_not_active to a pause of a final one', async () => {
      const run = await start(await workflow(chainOf(nodes.trigger('t'))));
      await finished(org.api, run.id);
      const resumed = await resume(run.id);
      expect(resumed.response.status).toBe(409);
      expect(resumed.error?.error.code).toBe('run_not_paused');
      const paused = await pause(run.id);
      expect(paused.response.status).toBe(409);
      expect(paused.error?.error.code).toBe('run_not_active');
    });

    it('terminates a paused run when its workflow is deleted: it can never be resumed', async () => {
      const workflowId = await workflow(chainOf(nodes.trigger('t'), nodes.delay('wait', 3600)));
      const run = await start(workflowId);
      await runReaches(org.api, run.id, ['waiting']);
      expectData(await pause(run.id), 200);
      const deleted = await org.api.DELETE('/api/v1/workflows/{id}', {
        params: { path: { id: workflowId } },
      });
      expect(deleted.response.status).toBe(200);
      expect((await runReaches(org.api, run.id, ['terminated'])).status).toBe('terminated');
      expect((await resume(run.id)).error?.error.code).toBe('run_not_paused');
    });

    it('cancels a paused run', async () => {
      const workflowId = await workflow(chainOf(nodes.trigger('t'), nodes.delay('wait', 3600)));
      const run = await start(workflowId);
      await runReaches(org.api, run.id, ['waiting']);
      expectData(await pause(run.id), 200);
      expect(expectData(await cancel(run.id), 200).status).toBe('terminated');
    });
  });

  describe('POST /runs/{id}/rerun', () => {
    it('carries the steps that do not depend on the chosen one over without running them again', async () => {
      const first = path('first');
      const second = path('second');
      const workflowId = await workflow(
        chainOf(nodes.trigger('t'), call('a', first), call('b', second), nodes.alwaysTrue('c')),
      );
      const run = await start(workflowId, '{"n":1}');
      expect((await finished(org.api, run.id)).status).toBe('complete');
      expect([callsTo(first), callsTo(second)]).toEqual([1, 1]);

      const again = expectData(await rerun(run.id, { fromNodeId: 'b' }), 201);
      expect(again).toMatchObject({ rerunOf: run.id, input: '{"n":1}', workflowId });
      expect(again.id).not.toBe(run.id);
      const done = await finished(org.api, again.id);
      expect(done.status).toBe('complete');
      expect(stepOf(done, 'a')).toMatchObject({ status: 'done', carriedFrom: run.id });
      expect(stepOf(done, 'b')?.carriedFrom).toBeUndefined();
      expect(stepOf(done, 'c')?.carriedFrom).toBeUndefined();
      // The ledger of the app: a ran once in all, b once per run.
      expect([callsTo(first), callsTo(second)]).toEqual([1, 2]);
    });

    it('reruns from the first failed step by default, and from the trigger with a new input', async () => {
      const first = path('first');
      const flaky = path('flaky');
      target.respond(flaky, { status: 500, body: { error: 'down' } });
      const workflowId = await workflow(chainOf(nodes.trigger('t'), call('a', first), call('f', flaky)));
      const run = await start(workflowId);
      const failed = await finished(org.api, run.id);
      expect(failed.status).toBe('errored');

      target.respond(flaky, { body: { ok: true } });
      const again = expectData(await rerun(run.id), 201);
      const done = await finished(org.api, again.id);
      expect(done.status).toBe('complete');
      expect(stepOf(done, 'a')?.carriedFrom).toBe(run.id);
      expect(callsTo(first)).toBe(1);

      const fresh = expectData(await rerun(run.id, { input: 'new input' }), 201);
      const freshDone = await finished(org.api, fresh.id);
      expect(freshDone).toMatchObject({ status: 'complete', input: 'new input', rerunOf: run.id });
      expect(freshDone.steps.every((step) => step.carriedFrom === undefined)).toBe(true);
      expect(callsTo(first)).toBe(2);
    });

    it('refuses a run not yet final, an unknown node, and a node and an input together', async () => {
      const gate = hold();
      const workflowId = await workflow(chainOf(nodes.trigger('t'), call('slow', gate.path)));
      const run = await start(workflowId);
      const early = await rerun(run.id);
      expect(early.response.status).toBe(409);
      expect(early.error?.error.code).toBe('run_not_final');
      gate.release();
      await finished(org.api, run.id);
      for (const body of [{ fromNodeId: 'nowhere' }, { fromNodeId: 'slow', input: 'x' }]) {
        const refused = await rerun(run.id, body);
        expect({ status: refused.response.status, code: refused.error?.error.code }).toEqual({
          status: 400,
          code: 'invalid_request',
        });
      }
    });

    it('counts against the monthly runs: plan_limit_reached past the plan', async () => {
      const free = await createOrganization(stack, { plan: 'free' });
      const project = await createProject(free.api, 'p');
      const workflowId = await createWorkflow(free.api, project, chainOf(nodes.trigger('t')));
      const run = expectData(await startRun(free.api, workflowId, {}), 201);
      await finished(free.api, run.id);
      const billing = (await free.api.GET('/api/v1/billing')).data!;
      const db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
      await db.connect();
      try {
        // Use up the month's runs without making a thousand requests.
        await db.query(`UPDATE catalog.run_usage SET runs = $2 WHERE organization_id = $1`, [
          free.organizationId,
          billing.limits.runs,
        ]);
      } finally {
        await db.end();
      }
      const refused = await free.api.POST('/api/v1/runs/{id}/rerun', {
        params: { path: { id: run.id } },
        body: {},
      });
      expect(refused.response.status).toBe(402);
      expect(refused.error?.error.code).toBe('plan_limit_reached');
    });
  });

  describe('rolling back', () => {
    it('undoes the done actions of a failed run, newest first, then ends errored', async () => {
      const [a, undoA, b, undoB, fails] = ['a', 'undo-a', 'b', 'undo-b', 'fails'].map(path) as [
        string,
        string,
        string,
        string,
        string,
      ];
      target.respond(a, { body: { made: 'order-1' } });
      target.respond(fails, { status: 500, body: { error: 'no stock' } });
      const workflowId = await workflow({
        ...chainOf(nodes.trigger('t'), call('a', a, undoA), call('b', b, undoB), call('f', fails)),
        settings: { onError: 'rollback' },
      });
      const run = await start(workflowId);
      const done = await finished(org.api, run.id);
      expect(done.status).toBe('errored');
      expect(done.error).toMatch(/answered 500/);
      expect(statuses(done)).toEqual([
        ['t', 'done'],
        ['a', 'done'],
        ['b', 'done'],
        ['f', 'error'],
        ['b', 'done', 'compensation'],
        ['a', 'done', 'compensation'],
      ]);
      // Newest first, and the compensation read its own node's output.
      const undone = target.received.filter((request) => request.path === undoA || request.path === undoB);
      expect(undone.map((request) => request.path)).toEqual([undoB, undoA]);
      expect(JSON.parse(undone[1]!.body)).toMatchObject({ status: 200, body: { made: 'order-1' } });
    });

    it('reruns a rolled-back run without building on what it undid', async () => {
      const [a, undoA, flaky] = [path('a'), path('undo-a'), path('flaky')];
      target.respond(flaky, { status: 500, body: { error: 'down' } });
      const workflowId = await workflow({
        ...chainOf(nodes.trigger('t'), call('a', a, undoA), call('f', flaky)),
        settings: { onError: 'rollback' },
      });
      const run = await start(workflowId);
      expect((await finished(org.api, run.id)).status).toBe('errored');
      expect([callsTo(a), callsTo(undoA)]).toEqual([1, 1]);

      target.respond(flaky, { body: { ok: true } });
      const again = await finished(org.api, expectData(await rerun(run.id), 201).id);
      expect(again.status).toBe('complete');
      // a was undone: it runs again rather than being carried over, and is not undone twice.
      expect(stepOf(again, 'a')?.carriedFrom).toBeUndefined();
      expect([callsTo(a), callsTo(undoA)]).toEqual([2, 1]);
    });

    it('reports a compensation that fails after its retries in the error and goes on with the rest', async () => {
      const [a, undoA, b, undoB, fails] = ['a', 'undo-a', 'b', 'undo-b', 'fails'].map(path) as [
        string,
        string,
        string,
        string,
        string,
      ];
      target.respond(undoB, { status: 503, body: { error: 'undo refused' } });
      target.respond(fails, { status: 500, body: { error: 'boom' } });
      const workflowId = await workflow({
        ...chainOf(nodes.trigger('t'), call('a', a, undoA), call('b', b, undoB), call('f', fails)),
        settings: { onError: 'rollback' },
      });
      const done = await finished(org.api, (await start(workflowId)).id, { timeoutMs: 30_000 });
      expect(done.status).toBe('errored');
      expect(done.error).toMatch(/The compensation of "b" failed: .*503/);
      // One try and one retry of b's compensation, then a's.
      expect(callsTo(undoB)).toBe(2);
      expect(callsTo(undoA)).toBe(1);
      expect(
        done.steps.filter((step) => step.compensation).map((step) => [step.nodeId, step.status]),
      ).toEqual([
        ['b', 'error'],
        ['a', 'done'],
      ]);
    });

    it('rolls back a cancelled run with rollback: true, then ends terminated', async () => {
      const gate = hold();
      const [a, undoA] = [path('a'), path('undo-a')];
      const workflowId = await workflow(
        chainOf(nodes.trigger('t'), call('a', a, undoA), call('slow', gate.path)),
      );
      const run = await start(workflowId);
      await heldCallReached(gate);
      const cancelled = expectData(await cancel(run.id, { rollback: true, reason: 'undo it' }), 200);
      expect(['rollingBack', 'terminated']).toContain(cancelled.status);
      const done = await finished(org.api, run.id);
      expect(done.status).toBe('terminated');
      expect(done.error).toMatch(/^Cancelled by API key \S+: undo it$/);
      expect(statuses(done)).toEqual([
        ['t', 'done'],
        ['a', 'done'],
        ['slow', 'error'],
        ['a', 'done', 'compensation'],
      ]);
      expect(callsTo(undoA)).toBe(1);
      gate.release();
    });

    it('refuses a diagram whose settings.onError is not stop or rollback at publish', async () => {
      const draft = await createDraft(org.api, projectId, {
        // A value the type refuses, sent as a client with no types would.
        diagram: { ...chainOf(nodes.trigger('t')), settings: { onError: 'retry' as 'stop' } },
      });
      const published = await org.api.POST('/api/v1/workflows/{id}/publish', {
        params: { path: { id: draft.id } },
      });
      expect(published.response.status).toBe(400);
      expect(published.error?.error).toMatchObject({ code: 'invalid_workflow' });
      expect(JSON.stringify(published.error?.error.details)).toMatch(/settings\.onError/);
    });
  });

  it('a diagram edge joins both branches back: a rerun from one branch carries the other', async () => {
    const [left, right] = [path('left'), path('right')];
    const diagram: TestDiagram = {
      nodes: [nodes.trigger('t'), call('l', left), call('r', right), nodes.alwaysTrue('join')],
      edges: [edge('e1', 't', 'l'), edge('e2', 't', 'r'), edge('e3', 'l', 'join'), edge('e4', 'r', 'join')],
    };
    const run = await start(await workflow(diagram));
    await finished(org.api, run.id);
    const again = expectData(await rerun(run.id, { fromNodeId: 'r' }), 201);
    const done = await finished(org.api, again.id);
    expect(done.status).toBe('complete');
    expect(stepOf(done, 'l')?.carriedFrom).toBe(run.id);
    expect(stepOf(done, 'join')?.carriedFrom).toBeUndefined();
    expect([callsTo(left), callsTo(right)]).toEqual([1, 2]);
  });
});
