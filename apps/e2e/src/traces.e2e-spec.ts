import { randomBytes } from 'node:crypto';

import {
  type ApiClient,
  chainOf,
  ConsoleBrowser,
  createAgent,
  createConnection,
  createDatabaseIn,
  createMember,
  createOrganization,
  createProject,
  createWorkflow,
  deliver,
  expectData,
  finished,
  HttpTarget,
  nodes,
  OtlpReceiver,
  type ReceivedSpan,
  runsOf,
  ScriptedModel,
  type ServiceProcess,
  signedDelivery,
  TestStack,
  waitFor,
} from '#testing';

/**
 * OpenTelemetry traces across every hop (docs/tracing.md), collected by a test OTLP receiver from a
 * stack of one process per service: one run started with a `traceparent` puts the spans of the
 * gateway, the runner, events, database and agent in that one trace, each span's parent among them;
 * a run taken over by another runner after a crash keeps its trace; a run without one gets its own.
 */

const RUNNER_ENV = {
  RUNNER_LEASE_MS: '2000',
  RUNNER_SWEEP_INTERVAL_MS: '200',
  RUNNER_REQUEUE_AFTER_MS: '1000',
  RUNNER_SHUTDOWN_GRACE_MS: '500',
};

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** A caller's own span: the trace the run must continue, and the span that is the root's parent. */
const incoming = () => {
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
};

/** Spans whose parent is missing from the set, but for those whose parent is `outside`. */
const orphansOf = (spans: readonly ReceivedSpan[], outside: string) => {
  const ids = new Set(spans.map((span) => span.spanId));
  return spans.filter((span) => span.parentSpanId !== outside && !ids.has(span.parentSpanId));
};

const stepSpans = (spans: readonly ReceivedSpan[], nodeId: string) =>
  spans.filter((span) => span.name.startsWith('step ') && span.attributes['flowmesh.node.id'] === nodeId);

describe('traces', () => {
  let receiver: OtlpReceiver;
  let model: ScriptedModel;
  let target: HttpTarget;
  let stack: TestStack;
  let api: ApiClient;
  let projectId: string;
  let connectionId: string;
  let organizationId: string;

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    model = await ScriptedModel.start();
    target = await HttpTarget.start();
    stack = await TestStack.start({
      ...receiver.env,
      ...model.gatewayEnv,
      ...RUNNER_ENV,
      // The actions call the target on this machine.
      ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true',
      TRACE_VIEWER_URL: 'https://jaeger.example/trace/{traceId}',
    });
    const org = await createOrganization(stack.description);
    api = org.api;
    organizationId = org.organizationId;
    projectId = await createProject(api, 'Traces');
    ({ connectionId } = await createConnection(stack.description, org.organizationId, 'http'));
  }, 120_000);

  afterAll(async () => {
    await target?.stop();
    await stack?.stop();
    await model?.stop();
    await receiver?.stop();
  });

  /** Starts a run of `workflowId`, with the caller's `traceparent` when given. */
  async function start(workflowId: string, traceparent?: string): Promise<string> {
    const started = await api.POST('/api/v1/workflows/{id}/runs', {
      params: { path: { id: workflowId } },
      body: { input: '{}' },
      ...(traceparent === undefined ? {} : { headers: { traceparent } }),
    });
    return expectData(started, 201).id;
  }

  it("puts one run's spans from gateway, runner, events, database and agent in the caller's trace", async () => {
    const databaseId = await createDatabaseIn(api, 'traced');
    const { id: agentId } = await createAgent(api, { name: 'tracer', instructions: 'Answer briefly.' });
    model.queue({ text: 'Traced.' });
    const workflowId = await createWorkflow(
      api,
      projectId,
      chainOf(
        nodes.trigger('t'),
        nodes.httpCall('call', `${target.url}/traced`, { connectionId }),
        nodes.database('sql', databaseId, 'SELECT 42 AS answer'),
        nodes.agent('ask', agentId, 'Say something.'),
      ),
      { name: 'Traced' },
    );
    const caller = incoming();
    const runId = await start(workflowId, caller.traceparent);
    const run = await finished(api, runId, { timeoutMs: 30_000 });
    expect(run.status).toBe('complete');
    expect(run.traceId).toBe(caller.traceId);
    const read = expectData(await api.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } }), 200);
    expect(read.traceId).toBe(caller.traceId);

    // The action's target was called with a traceparent of the run's trace.
    const [called] = target.requestsTo('/traced');
    expect(called?.headers.traceparent).toMatch(new RegExp(`^00-${caller.traceId}-[0-9a-f]{16}-01$`));

    // Spans are exported as they end, each process on its own: wait for the whole tree.
    const services = ['gateway', 'runner', 'events', 'database', 'agent'];
    const spans = await receiver.waitFor((all) => {
      const trace = all.filter((span) => span.traceId === caller.traceId);
      const complete =
        services.every((service) => trace.some((span) => span.service === service)) &&
        ['call', 'sql', 'ask'].every((nodeId) => stepSpans(trace, nodeId).length > 0) &&
        trace.some((span) => span.name === 'sql batch') &&
        trace.some((span) => span.name.startsWith('ai.generateText')) &&
        orphansOf(trace, caller.spanId).length === 0;
      return complete ? trace : undefined;
    }, "the run's spans");

    // Catalog (the run counted) and workflow (the target resolved) take part too.
    expect([...new Set(spans.map((span) => span.service))]).toEqual(expect.arrayContaining(services));
    expect(orphansOf(spans, caller.spanId)).toEqual([]);
    // One root: the gateway's server span of the start request, child of the caller's span.
    const roots = spans.filter((span) => span.parentSpanId === caller.spanId);
    expect(roots.map((span) => [span.service, span.name, span.kind])).toEqual([
      ['gateway', 'POST /api/v1/workflows/:id/runs', 2],
    ]);

    // The steps are children of the run's span, with their node, type and status.
    const runSpan = spans.find((span) => span.name === 'run' && span.attributes['flowmesh.run.id'] === runId);
    expect(runSpan?.service).toBe('runner');
    for (const [nodeId, type] of [
      ['call', 'action'],
      ['sql', 'database'],
      ['ask', 'agent'],
    ] as const) {
      const [step] = stepSpans(spans, nodeId);
      expect(step).toMatchObject({
        service: 'runner',
        name: `step ${type}`,
        parentSpanId: runSpan?.spanId,
        attributes: expect.objectContaining({
          'flowmesh.node.type': type,
          'flowmesh.step.status': 'done',
          'flowmesh.run.id': runId,
        }),
      });
    }
    // The SQL batch says how many statements it ran, never what they were (content is off).
    const batch = spans.find((span) => span.name === 'sql batch');
    expect(batch).toMatchObject({
      service: 'database',
      attributes: expect.objectContaining({ 'db.operation.batch.size': 1 }),
    });
    expect(batch?.attributes['db.query.text']).toBeUndefined();
    // The model call carries its token counts, and no prompt.
    const generation = spans.find((span) => span.name === 'ai.generateText.doGenerate');
    expect(generation?.service).toBe('agent');
    expect(typeof generation?.attributes['gen_ai.usage.input_tokens']).toBe('number');
    expect(generation?.attributes['ai.prompt.messages']).toBeUndefined();
    // The outgoing action is a client span in events, the parent of the traceparent the target got.
    const action = spans.find((span) => span.service === 'events' && span.kind === 3);
    expect(called?.headers.traceparent).toContain(`-${action?.spanId}-`);
  }, 90_000);

  it('keeps a run in its trace when another runner takes it over after a crash', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The first call is held (the runner is killed meanwhile); the call made again answers at once.
    target.respond('/slow', { until: released }, { body: { ok: true } });
    const workflowId = await createWorkflow(
      api,
      projectId,
      chainOf(
        nodes.trigger('t'),
        nodes.httpCall('slow', `${target.url}/slow`, { connectionId }),
        nodes.httpCall('after', `${target.url}/after`, { connectionId }),
      ),
      { name: 'Restarted' },
    );
    const caller = incoming();
    const runId = await start(workflowId, caller.traceparent);
    await waitFor(() => (target.requestsTo('/slow').length > 0 ? true : undefined), {
      what: 'the held call',
    });
    // The run's span ended with the start; the runner is killed once it has been exported.
    const runSpan = await receiver.waitFor(
      (all) => all.find((span) => span.name === 'run' && span.attributes['flowmesh.run.id'] === runId),
      "the run's span",
    );
    expect(runSpan.traceId).toBe(caller.traceId);

    const runner = stack.processes.get('runner') as ServiceProcess;
    await runner.kill('SIGKILL');
    release();
    await stack.startService('runner', RUNNER_ENV, 'runner-after-crash');
    const run = await finished(api, runId, { timeoutMs: 30_000 });
    expect(run.status).toBe('complete');
    expect(run.traceId).toBe(caller.traceId);

    // What the killed runner had open (the cut-off step's span) was never exported, so its children
    // (the held call's client span in events) are orphans; everything of the new runner is not.
    // The job's span ends after the steps', so it may come in a later export: waited for too.
    const jobSpanOfRun = (span: typeof runSpan) =>
      span.name === 'run process' && span.parentSpanId === runSpan.spanId;
    const spans = await receiver.waitFor((all) => {
      const trace = all.filter((span) => span.traceId === caller.traceId);
      return stepSpans(trace, 'after').length > 0 &&
        stepSpans(trace, 'slow').length > 0 &&
        trace.some(jobSpanOfRun)
        ? trace
        : undefined;
    }, 'the spans of the steps and the job after the restart');
    // The step the crash cut off ran again, and the next step ran, on the new runner, under the run.
    const later = [...stepSpans(spans, 'slow'), ...stepSpans(spans, 'after')];
    expect(later.map((step) => [step.attributes['flowmesh.node.id'], step.parentSpanId])).toEqual([
      ['slow', runSpan.spanId],
      ['after', runSpan.spanId],
    ]);
    // The new runner's job handling is a span of the run's trace too.
    expect(spans.some(jobSpanOfRun)).toBe(true);
    // Each step's request to events is its child.
    const steps = new Set(later.map((step) => step.spanId));
    const requests = spans.filter((span) => span.service === 'runner' && steps.has(span.parentSpanId));
    expect(new Set(requests.map((span) => span.parentSpanId))).toEqual(steps);
    expect(requests.every((span) => span.kind === 3)).toBe(true);
  }, 90_000);

  it('gives a run started without a traceparent a trace of its own', async () => {
    const workflowId = await createWorkflow(
      api,
      projectId,
      chainOf(nodes.trigger('t'), nodes.httpCall('call', `${target.url}/untraced`, { connectionId })),
      { name: 'Untraced' },
    );
    const first = await finished(api, await start(workflowId), { timeoutMs: 30_000 });
    const second = await finished(api, await start(workflowId), { timeoutMs: 30_000 });
    expect(first.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(second.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(second.traceId).not.toBe(first.traceId);
    // Its root is the gateway's span of the start request.
    const spans = await receiver.waitFor((all) => {
      const trace = all.filter((span) => span.traceId === first.traceId);
      return stepSpans(trace, 'call').length > 0 && orphansOf(trace, '').length === 0 ? trace : undefined;
    }, 'the spans of the untraced run');
    expect(spans.filter((span) => span.parentSpanId === '').map((span) => span.service)).toEqual(['gateway']);
  }, 60_000);

  it("starts a trace of its own for an app event's run, whatever trace the delivery came in", async () => {
    const hook = await createConnection(stack.description, organizationId, 'webhook');
    const workflowId = await createWorkflow(
      api,
      projectId,
      chainOf(nodes.webhook('hook', hook.connectionId), nodes.alwaysTrue('c')),
      { name: 'Evented' },
    );
    const caller = incoming();
    const delivery = signedDelivery(hook.secret!, { marker: 'traced' });
    const accepted = await deliver(stack.baseUrl, hook.connectionId, {
      body: delivery.body,
      headers: { ...delivery.headers, traceparent: caller.traceparent },
    });
    expect(accepted.status).toBe(202);
    const runId = await waitFor(async () => (await runsOf(api, workflowId))[0]?.id, {
      what: 'the event run',
    });
    const run = await finished(api, runId, { timeoutMs: 30_000 });
    expect(run.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(run.traceId).not.toBe(caller.traceId);
    // The run's span is the root of its trace.
    const runSpan = await receiver.waitFor(
      (all) => all.find((span) => span.name === 'run' && span.attributes['flowmesh.run.id'] === runId),
      "the event run's span",
    );
    expect(runSpan).toMatchObject({ traceId: run.traceId, parentSpanId: '' });
  }, 60_000);

  it("links the run page to the run's trace in the configured viewer", async () => {
    const workflowId = await createWorkflow(
      api,
      projectId,
      chainOf(nodes.trigger('t'), nodes.alwaysTrue('c')),
      {
        name: 'Linked',
      },
    );
    const caller = incoming();
    const run = await finished(api, await start(workflowId, caller.traceparent), { timeoutMs: 30_000 });
    expect(run.traceId).toBe(caller.traceId);
    const [browser, member] = await Promise.all([
      ConsoleBrowser.launch(stack.baseUrl),
      createMember(stack.description, organizationId, 'member'),
    ]);
    try {
      const page = await browser.signIn(member.email, member.password);
      await page.goto(`/runs/${run.id}`);
      const link = page.getByRole('link', { name: 'Trace' });
      await link.waitFor();
      expect(await link.getAttribute('href')).toBe(`https://jaeger.example/trace/${caller.traceId}`);
    } finally {
      await browser.close();
    }
  }, 60_000);
});

describe('traces of the all-in-one process', () => {
  let receiver: OtlpReceiver;
  let target: HttpTarget;
  let stack: TestStack;

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    target = await HttpTarget.start();
    stack = await TestStack.start(
      { ...receiver.env, ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true' },
      { services: ['catalog', 'events', 'workflow', 'runner'], allInOne: true },
    );
  }, 120_000);

  afterAll(async () => {
    await target?.stop();
    await stack?.stop();
    await receiver?.stop();
  });

  it('names the process flowmesh and each span its service', async () => {
    const org = await createOrganization(stack.description);
    const projectId = await createProject(org.api, 'One process');
    const { connectionId } = await createConnection(stack.description, org.organizationId, 'http');
    const workflowId = await createWorkflow(
      org.api,
      projectId,
      chainOf(nodes.trigger('t'), nodes.httpCall('call', `${target.url}/one`, { connectionId })),
    );
    const caller = incoming();
    const started = await org.api.POST('/api/v1/workflows/{id}/runs', {
      params: { path: { id: workflowId } },
      body: { input: '{}' },
      headers: { traceparent: caller.traceparent },
    });
    const run = await finished(org.api, expectData(started, 201).id, { timeoutMs: 30_000 });
    expect(run.traceId).toBe(caller.traceId);
    const spans = await receiver.waitFor((all) => {
      const trace = all.filter((span) => span.traceId === caller.traceId);
      return stepSpans(trace, 'call').length > 0 && orphansOf(trace, caller.spanId).length === 0
        ? trace
        : undefined;
    }, "the run's spans");
    expect(new Set(spans.map((span) => span.service))).toEqual(new Set(['flowmesh']));
    expect([...new Set(spans.map((span) => span.attributes['flowmesh.service']))]).toEqual(
      expect.arrayContaining(['gateway', 'runner', 'events', 'catalog', 'workflow']),
    );
  }, 60_000);
});
