import { randomUUID } from 'node:crypto';

import type { StepApproval } from '#contracts';
import {
  chainOf,
  createConnection,
  createDraft,
  createOrganization,
  createProject,
  createWorkflow,
  type ErrorBody,
  expectData,
  HttpTarget,
  nodes,
  type OrganizationFixture,
  publishWorkflow,
  runReaches,
  type RunStatus,
  ScriptedModel,
  startRun,
  stepOf,
  type TestDiagram,
  TestStack,
  waitFor,
  type WorkflowRun,
} from '#testing';

/**
 * Child runs and the `workflow` node (issue 27, item 2; docs/runs.md, "Child runs"; docs/workflows.md,
 * "Call a workflow"): a parent waits for its child's reply, fails with its failure, keeps waiting
 * while the child waits on an approval; cancel, pause and resume reach the child; a cycle of two
 * workflows stops at RUN_MAX_DEPTH; `wait: false` goes on at once. A stack of its own, with the
 * scripted model for the agent that asks first and a fast sweeper.
 */
describe('child runs: the workflow node', () => {
  let stack: TestStack;
  let model: ScriptedModel;
  let target: HttpTarget;
  let org: OrganizationFixture;
  let projectId: string;
  let connectionId: string;
  let paths = 0;

  const SETTLE = { timeoutMs: 30_000, intervalMs: 50 };
  const FINAL: RunStatus[] = ['complete', 'errored', 'terminated'];

  beforeAll(async () => {
    model = await ScriptedModel.start();
    target = await HttpTarget.start();
    stack = await TestStack.start(
      { ...model.gatewayEnv, ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true', RUNNER_SWEEP_INTERVAL_MS: '200' },
      { services: ['catalog', 'database', 'events', 'agent', 'workflow', 'runner'] },
    );
    org = await createOrganization(stack.description);
    projectId = await createProject(org.api, 'Composition');
    ({ connectionId } = await createConnection(stack.description, org.organizationId, 'http'));
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await Promise.all([model?.stop(), target?.stop()]);
  });

  const workflow = (diagram: TestDiagram, name = 'Child runs') =>
    createWorkflow(org.api, projectId, diagram, { name });

  const start = async (workflowId: string, input = '') =>
    expectData(await startRun(org.api, workflowId, { input }), 201);

  const read = async (runId: string): Promise<WorkflowRun> =>
    expectData(await org.api.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } }), 200);

  const childrenOf = async (
    runId: string,
    query: { nodeId?: string; cursor?: string; limit?: number } = {},
  ) =>
    expectData(
      await org.api.GET('/api/v1/runs/{id}/children', { params: { path: { id: runId }, query } }),
      200,
    );

  /** The one child a step of the run started, once it is recorded. */
  const childOf = (runId: string, nodeId: string) =>
    waitFor(async () => (await childrenOf(runId, { nodeId })).data[0], { what: `the child of ${runId}` });

  /** A workflow that waits on a call to the local app until the test releases it. */
  const heldWorkflow = async () => {
    const gate = target.hold(`/held-${(paths += 1)}`);
    const workflowId = await workflow(
      chainOf(nodes.trigger('t'), nodes.httpCall('slow', `${target.url}${gate.path}`, { connectionId })),
      'Held',
    );
    const reached = () =>
      waitFor(() => (target.requestsTo(gate.path).length > 0 ? true : undefined), {
        what: `the call to ${gate.path}`,
      });
    return { workflowId, gate, reached };
  };

  it("waits for its child and takes the child's reply; the child shows its parent, and is listed", async () => {
    const child = await workflow(chainOf(nodes.trigger('t')), 'Greeter');
    const parent = await workflow(
      chainOf(nodes.trigger('t'), nodes.callWorkflow('call', child, { input: 'Hello {{trigger.name}}' })),
    );

    const started = await start(parent, '{"name":"Ada"}');
    const done = await runReaches(org.api, started.id, FINAL, SETTLE);

    expect(done).toMatchObject({ status: 'complete', reply: 'Hello Ada' });
    expect(done).not.toHaveProperty('parentRunId');
    const call = stepOf(done, 'call')!;
    expect(JSON.parse(call.input!)).toEqual({ workflowId: child, input: 'Hello Ada', wait: true });
    const childRunId = call.output!.runId!;
    expect(call.output).toEqual({ runId: childRunId, status: 'complete', reply: 'Hello Ada' });

    const childRun = await read(childRunId);
    expect(childRun).toMatchObject({
      workflowId: child,
      status: 'complete',
      input: 'Hello Ada',
      reply: 'Hello Ada',
      parentRunId: started.id,
      parentNodeId: 'call',
    });
    expect(childRun).not.toHaveProperty('iteration');

    const listed = await childrenOf(started.id);
    expect(listed).toEqual({
      data: [expect.objectContaining({ id: childRunId, parentRunId: started.id, parentNodeId: 'call' })],
      nextCursor: null,
    });
    expect((await childrenOf(started.id, { nodeId: 'elsewhere' })).data).toEqual([]);
    // A called workflow's run is an ordinary run of its workflow.
    const runsOfChild = expectData(
      await org.api.GET('/api/v1/workflows/{id}/runs', { params: { path: { id: child } } }),
      200,
    );
    expect(runsOfChild.data).toContainEqual(
      expect.objectContaining({ id: childRunId, parentRunId: started.id }),
    );
  });

  it("fails its step with the child's error and run id when the child fails", async () => {
    const child = await workflow(
      chainOf(nodes.trigger('t'), nodes.delay('when', { until: '{{trigger}}' })),
      'Fails',
    );
    const parent = await workflow(chainOf(nodes.trigger('t'), nodes.callWorkflow('call', child)));

    const started = await start(parent, 'not a time');
    const done = await runReaches(org.api, started.id, FINAL, SETTLE);

    const childRunId = (await childOf(started.id, 'call')).id;
    const childRun = await read(childRunId);
    expect(childRun.status).toBe('errored');
    expect(done.status).toBe('errored');
    const expected = `Node "call": the run ${childRunId} of workflow ${child} ended errored: ${childRun.error}`;
    expect(stepOf(done, 'call')).toMatchObject({ status: 'error', error: expected });
    expect(done.error).toBe(expected);
    expect(childRun.error).toMatch(/until gave "not a time"/);

    // A workflow that exists but was never published is refused when the step runs, not at publish.
    const draft = await createDraft(org.api, projectId, {
      name: 'Unpublished',
      diagram: chainOf(nodes.trigger('t')),
    });
    const caller = await workflow(chainOf(nodes.trigger('t'), nodes.callWorkflow('call', draft.id)));
    const refused = await runReaches(org.api, (await start(caller)).id, FINAL, SETTLE);
    expect(refused.status).toBe('errored');
    expect(stepOf(refused, 'call')!.error).toBe(
      `Node "call": the workflow ${draft.id} could not be started: The workflow has never been published: publish it, or run the draft with draft: true.`,
    );
    expect((await childrenOf(refused.id)).data).toEqual([]);
  });

  it('keeps waiting while its child waits on an approval, and goes on once it is decided', async () => {
    const agent = expectData(
      await org.api.POST('/api/v1/agents', {
        body: {
          name: 'careful',
          apps: [
            { connectionId, integrationId: 'http', actions: ['http__request'], approvals: ['http__request'] },
          ],
        },
      }),
      201,
    );
    const child = await workflow(
      chainOf(nodes.trigger('t'), nodes.agent('ask', agent.id, 'Tell the team.')),
      'Asks',
    );
    const parent = await workflow(chainOf(nodes.trigger('t'), nodes.callWorkflow('call', child)));
    model.queue({
      toolCalls: [
        {
          name: 'http__request',
          arguments: { method: 'POST', url: `${target.url}/approved`, body: { n: 1 } },
        },
      ],
    });

    const started = await start(parent);
    const childRunId = (await childOf(started.id, 'call')).id;
    const asking = await runReaches(org.api, childRunId, ['waiting'], SETTLE);
    const waiting = await runReaches(org.api, started.id, ['waiting'], SETTLE);
    expect(stepOf(waiting, 'call')).toMatchObject({ status: 'waiting', output: { runId: childRunId } });
    expect(stepOf(waiting, 'call')!.output).toEqual({ runId: childRunId });
    const [approval] = JSON.parse(stepOf(asking, 'ask')!.output!.approvals!) as StepApproval[];

    model.queue({ text: 'The team was told.' });
    const decided = await org.api.POST('/api/v1/runs/{id}/approvals/{approvalId}', {
      params: { path: { id: childRunId, approvalId: approval!.id } },
      body: { decision: 'approve' },
    });
    expect(decided.response.status).toBe(200);

    // The child's end wakes the parent at once: well before the step's 30 s fallback.
    const done = await runReaches(org.api, started.id, FINAL, { ...SETTLE, timeoutMs: 20_000 });
    expect(done).toMatchObject({ status: 'complete', reply: 'The team was told.' });
    expect((await read(childRunId)).status).toBe('complete');
    expect(target.requestsTo('/approved')).toHaveLength(1);
  });

  it('terminates a running child when its parent is cancelled', async () => {
    const held = await heldWorkflow();
    const parent = await workflow(chainOf(nodes.trigger('t'), nodes.callWorkflow('call', held.workflowId)));

    const started = await start(parent);
    await held.reached();
    const childRunId = (await childOf(started.id, 'call')).id;

    const cancelled = await org.api.POST('/api/v1/runs/{id}/cancel', {
      params: { path: { id: started.id } },
      body: { reason: 'not today' },
    });
    expect(cancelled.response.status).toBe(200);
    expect(cancelled.data!.status).toBe('terminated');

    const childRun = await read(childRunId);
    expect(childRun.status).toBe('terminated');
    expect(childRun.error).toMatch(
      new RegExp(
        `^Run ${started.id}, which this run was started under, was cancelled\\. Cancelled by API key \\S+: not today$`,
      ),
    );
    expect(stepOf(childRun, 'slow')).toMatchObject({ status: 'error', error: childRun.error });
    // The child's runner was told: its held call is aborted, not left to run.
    await waitFor(() => target.requestsTo(held.gate.path)[0]?.abandonedAt, {
      what: 'the held call to be closed',
    });
    held.gate.release();
    expect((await read(started.id)).status).toBe('terminated');
  });

  it("fails the parent's step, not the parent, when the child alone is cancelled", async () => {
    const child = await workflow(chainOf(nodes.trigger('t'), nodes.delay('long', 3_600)), 'Long');
    const parent = await workflow(chainOf(nodes.trigger('t'), nodes.callWorkflow('call', child)));

    const started = await start(parent);
    const childRunId = (await childOf(started.id, 'call')).id;
    await runReaches(org.api, childRunId, ['waiting'], SETTLE);
    await runReaches(org.api, started.id, ['waiting'], SETTLE);
    const cancelled = await org.api.POST('/api/v1/runs/{id}/cancel', {
      params: { path: { id: childRunId } },
      body: { reason: 'the child only' },
    });
    expect(cancelled.response.status).toBe(200);

    const done = await runReaches(org.api, started.id, FINAL, { ...SETTLE, timeoutMs: 20_000 });
    expect(done.status).toBe('errored');
    expect(stepOf(done, 'call')!.error).toMatch(
      new RegExp(
        `^Node "call": the run ${childRunId} of workflow ${child} ended terminated: Cancelled by API key \\S+: the child only$`,
      ),
    );
  });

  it('fails its step when the called workflow is deleted while its run goes on', async () => {
    const child = await workflow(chainOf(nodes.trigger('t'), nodes.delay('long', 3_600)), 'Deleted');
    const parent = await workflow(chainOf(nodes.trigger('t'), nodes.callWorkflow('call', child)));

    const started = await start(parent);
    const childRunId = (await childOf(started.id, 'call')).id;
    await runReaches(org.api, childRunId, ['waiting'], SETTLE);
    const deleted = await org.api.DELETE('/api/v1/workflows/{id}', { params: { path: { id: child } } });
    expect(deleted.response.status).toBe(200);

    const done = await runReaches(org.api, started.id, FINAL, { ...SETTLE, timeoutMs: 60_000 });
    expect(done.status).toBe('errored');
    expect(stepOf(done, 'call')!.error).toBe(
      `Node "call": the run ${childRunId} of workflow ${child} ended terminated.`,
    );
  });

  it('pauses and resumes its child with it', async () => {
    // A nap long enough that the child is still in it when the pause lands, however slow the machine.
    const child = await workflow(chainOf(nodes.trigger('t'), nodes.delay('nap', 3)), 'Naps');
    const parent = await workflow(chainOf(nodes.trigger('t'), nodes.callWorkflow('call', child)));

    const started = await start(parent);
    const childRunId = (await childOf(started.id, 'call')).id;
    await runReaches(org.api, childRunId, ['waiting'], SETTLE);

    const paused = await org.api.POST('/api/v1/runs/{id}/pause', { params: { path: { id: started.id } } });
    expect(paused.response.status).toBe(200);
    expect(['paused', 'waitingForPause']).toContain(paused.data!.status);
    const pausedAt = Date.now();
    // The child's nap falls due while it is paused: it stays paused, well past that.
    await waitFor(
      async () => {
        const childRun = await read(childRunId);
        expect(childRun.status).toBe('paused');
        return Date.now() - pausedAt > 4_000 ? true : undefined;
      },
      { what: 'the child to stay paused past its nap', intervalMs: 200 },
    );
    expect((await runReaches(org.api, started.id, ['paused'], SETTLE)).status).toBe('paused');

    const resumed = await org.api.POST('/api/v1/runs/{id}/resume', { params: { path: { id: started.id } } });
    expect(resumed.response.status).toBe(200);

    const done = await runReaches(org.api, started.id, FINAL, SETTLE);
    expect(done.status).toBe('complete');
    expect((await read(childRunId)).status).toBe('complete');
  });

  it('stops two workflows calling each other at the depth limit, with a step error naming it', async () => {
    const first = await workflow(chainOf(nodes.trigger('t')), 'Ping');
    const second = await workflow(chainOf(nodes.trigger('t'), nodes.callWorkflow('ping', first)), 'Pong');
    const patched = await org.api.PATCH('/api/v1/workflows/{id}', {
      params: { path: { id: first } },
      body: { diagram: chainOf(nodes.trigger('t'), nodes.callWorkflow('pong', second)) },
    });
    expect(patched.response.status).toBe(200);
    await publishWorkflow(org.api, first);

    const started = await start(first);
    const done = await runReaches(org.api, started.id, FINAL, { ...SETTLE, timeoutMs: 60_000 });
    expect(done.status).toBe('errored');

    // Down the chain of children: ten runs under the first, the last refused an eleventh.
    let deepest = done;
    let levels = 0;
    for (;;) {
      const [next] = (await childrenOf(deepest.id)).data;
      if (!next) break;
      deepest = await read(next.id);
      levels += 1;
    }
    expect(levels).toBe(10);
    const limit =
      'a run it starts would be 11 runs deep, past the most runs may nest (10); do two workflows call each other?';
    expect(deepest.status).toBe('errored');
    expect(deepest.error).toBe(`Node "${deepest.workflowId === first ? 'pong' : 'ping'}": ${limit}`);
    expect(done.error).toContain(limit);
  });

  it('goes on at once with `wait: false`, the child running on its own', async () => {
    const child = await workflow(chainOf(nodes.trigger('t'), nodes.delay('nap', 1)), 'Fire and forget');
    const parent = await workflow(
      chainOf(nodes.trigger('t'), nodes.callWorkflow('fire', child, { input: '{{trigger}}!', wait: false })),
    );

    const started = await start(parent, 'go');
    const done = await runReaches(org.api, started.id, FINAL, SETTLE);
    expect(done.status).toBe('complete');
    const fire = stepOf(done, 'fire')!;
    const childRunId = fire.output!.runId!;
    expect(fire.output).toEqual({ runId: childRunId, status: 'queued' });
    expect(done.reply).toBe('');

    const childRun = await runReaches(org.api, childRunId, FINAL, SETTLE);
    expect(childRun).toMatchObject({
      status: 'complete',
      input: 'go!',
      parentRunId: started.id,
      parentNodeId: 'fire',
    });
  });

  it('refuses to publish a workflow node naming no workflow of the organization', async () => {
    const other = await createOrganization(stack.description);
    const theirs = await createWorkflow(
      other.api,
      await createProject(other.api, 'Theirs'),
      chainOf(nodes.trigger('t')),
    );
    for (const workflowId of [randomUUID(), theirs, 'not-an-id']) {
      const draft = await createDraft(org.api, projectId, {
        name: 'Calls nothing',
        diagram: chainOf(nodes.trigger('t'), nodes.callWorkflow('call', workflowId)),
      });
      const refused = await org.api.POST('/api/v1/workflows/{id}/publish', {
        params: { path: { id: draft.id } },
      });
      expect(refused.response.status).toBe(400);
      expect((refused.error as ErrorBody).error).toMatchObject({
        code: 'invalid_workflow',
        details: {
          issues: [
            {
              nodeId: 'call',
              path: 'nodes.1.data.properties.workflowId',
              message: `node "call": no workflow ${workflowId} in this organization.`,
            },
          ],
        },
      });
    }
    // Another organization cannot read a run's children.
    const mine = await start(await workflow(chainOf(nodes.trigger('t'))));
    const foreign = await other.api.GET('/api/v1/runs/{id}/children', { params: { path: { id: mine.id } } });
    expect(foreign.response.status).toBe(404);
    expect((foreign.error as ErrorBody).error.code).toBe('run_not_found');
  });
});
