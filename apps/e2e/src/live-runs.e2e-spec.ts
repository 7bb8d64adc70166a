import {
  ApiClient,
  chainOf,
  createConnection,
  createMember,
  createOrganization,
  createProject,
  createWorkflow,
  type ErrorBody,
  HttpTarget,
  nodes,
  type OrganizationFixture,
  runningStack,
  runReaches,
  type RunStep,
  sessionCookie,
  startExtraGateway,
  startRun,
  stepOf,
  type TargetResponse,
  type TestDiagram,
  type TestNode,
  waitFor,
  type WorkflowRun,
} from '#testing';

const stack = runningStack();

/** What the run stream sends, as the route's description in the OpenAPI document lists it. */
type SseEvent =
  | { event: 'run'; data: WorkflowRun }
  | { event: 'step'; data: RunStep }
  | { event: 'status'; data: Pick<WorkflowRun, 'id' | 'status' | 'reply' | 'error'> }
  | { event: 'end'; data: Pick<WorkflowRun, 'id' | 'status'> };

/** The run of the stream's first event, which must be a `run` event. */
function runIn(event: SseEvent | undefined): WorkflowRun {
  if (event?.event !== 'run') throw new Error(`not a run event: ${JSON.stringify(event)}`);
  return event.data;
}

/** An open `GET /runs/{id}/stream`, read event by event as a client would. */
interface OpenStream {
  status: number;
  headers: Headers;
  /** The next event, or undefined once the server closed the stream. */
  next(): Promise<SseEvent | undefined>;
  /** Every event to the end of the stream. */
  rest(): Promise<SseEvent[]>;
  /** Comment lines seen so far (heartbeats). */
  comments: number;
  abort(): void;
}

async function openStream(
  baseUrl: string,
  runId: string,
  headers: Record<string, string>,
): Promise<OpenStream & { errorBody?: ErrorBody }> {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}/api/v1/runs/${runId}/stream`, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  const abort = () => controller.abort();
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    const errorBody = (await response.json()) as ErrorBody;
    return {
      status: response.status,
      headers: response.headers,
      errorBody,
      next: () => Promise.resolve(undefined),
      rest: () => Promise.resolve([]),
      comments: 0,
      abort,
    };
  }
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const stream: OpenStream = {
    status: response.status,
    headers: response.headers,
    comments: 0,
    abort,
    async next() {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = frame.split('\n');
          if (lines.every((line) => line.startsWith(':'))) {
            stream.comments += 1;
            continue;
          }
          const field = (name: string) =>
            lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2);
          // The stream's JSON, which the server types by the event's name.
          return {
            event: field('event') ?? 'message',
            data: JSON.parse(field('data') ?? 'null'),
          } as SseEvent;
        }
        const chunk = await reader.read();
        if (chunk.done) return undefined;
        buffer += chunk.value;
      }
    },
    async rest() {
      const events: SseEvent[] = [];
      for (let event = await stream.next(); event; event = await stream.next()) events.push(event);
      return events;
    },
  };
  return stream;
}

/** Subscriptions the NATS server holds on a run's change notices, from its monitoring endpoint. */
async function subscriptionsTo(runId: string): Promise<number> {
  const response = await fetch(`${stack.natsMonitorUrl}/connz?subs=1&limit=4096`);
  const connz = (await response.json()) as { connections: Array<{ subscriptions_list?: string[] }> };
  const subject = `${stack.env.NATS_SUBJECT_PREFIX}runner.events.run-changed.${runId}`;
  return connz.connections
    .flatMap((connection) => connection.subscriptions_list ?? [])
    .filter((each) => each === subject).length;
}

const subscriptionsBecome = (runId: string, count: number) =>
  waitFor(async () => ((await subscriptionsTo(runId)) === count ? true : undefined), {
    timeoutMs: 5_000,
    what: `${count} subscription(s) to run ${runId}'s changes`,
  });

/** A call the local app holds until `release()`: the step stays `running` meanwhile. */
interface Hold {
  path: string;
  release(): void;
}

describe('live runs (extensions beyond the contract)', () => {
  let org: OrganizationFixture;
  let other: OrganizationFixture;
  let projectId: string;
  let connectionId: string;
  let target: HttpTarget;
  let holds = 0;
  const unreleased = new Set<() => void>();

  /** Held calls are answered with `status`; the calls after the first with `then`. */
  const hold = (status = 200, ...then: TargetResponse[]): Hold => {
    holds += 1;
    const path = `/hold-${holds}`;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    target.respond(path, { status, until: released, body: { held: path } }, ...then);
    unreleased.add(release);
    return { path, release };
  };

  const held = (id: string, { path }: Hold) =>
    nodes.action(id, 'http__request', { method: 'GET', url: `${target.url}${path}` }, { connectionId });

  const workflow = (api: ApiClient, diagram: TestDiagram) => createWorkflow(api, projectId, diagram);

  /** Starts a run whose `call` step is held by the app; answers once the app has the call. */
  async function heldRun(then: TestNode[] = []) {
    const gate = hold();
    const workflowId = await workflow(org.api, chainOf(nodes.trigger('t'), held('call', gate), ...then));
    const started = await startRun(org.api, workflowId, {});
    expect(started.response.status).toBe(201);
    await waitFor(() => (target.requestsTo(gate.path).length === 1 ? true : undefined), {
      what: 'the held call to reach the app',
    });
    return { workflowId, runId: started.data!.id, gate };
  }

  beforeAll(async () => {
    [org, other] = await Promise.all([createOrganization(stack), createOrganization(stack)]);
    projectId = await createProject(org.api, 'Live runs');
    target = await HttpTarget.start();
    ({ connectionId } = await createConnection(stack, org.organizationId, 'http'));
  });

  afterAll(async () => {
    for (const release of unreleased) release();
    await target?.stop();
  });

  describe('GET /runs/{id}?wait=N', () => {
    it('answers as soon as the run completes', async () => {
      const { runId, gate } = await heldRun([nodes.alwaysTrue('c')]);
      let answered = false;
      const began = Date.now();
      const waiting = org.api
        .GET('/api/v1/runs/{id}', { params: { path: { id: runId }, query: { wait: 30 } } })
        .finally(() => (answered = true));
      await subscriptionsBecome(runId, 1);
      expect(answered).toBe(false);
      gate.release();
      const run = await waiting;
      expect(run.response.status).toBe(200);
      expect(run.data!.status).toBe('complete');
      expect(run.data!.steps.map((step) => [step.nodeId, step.status])).toEqual([
        ['t', 'done'],
        ['call', 'done'],
        ['c', 'done'],
      ]);
      expect(Date.now() - began).toBeLessThan(10_000);
      await subscriptionsBecome(runId, 0);
    });

    it('answers when the run starts waiting on a delay due after N seconds', async () => {
      const { runId, gate } = await heldRun([nodes.delay('later', 3600)]);
      const waiting = org.api.GET('/api/v1/runs/{id}', {
        params: { path: { id: runId }, query: { wait: 30 } },
      });
      await subscriptionsBecome(runId, 1);
      gate.release();
      const run = await waiting;
      expect(run.data!.status).toBe('waiting');
      expect(stepOf(run.data!, 'later')).toMatchObject({
        status: 'waiting',
      });
    });

    it('answers at once a run already waiting on a delay due after N seconds', async () => {
      const workflowId = await workflow(org.api, chainOf(nodes.trigger('t'), nodes.delay('later', 60)));
      const started = await startRun(org.api, workflowId, {});
      const runId = started.data!.id;
      await runReaches(org.api, runId, ['waiting'], { what: 'the run to wait for its delay' });
      const deadline = Date.now() + 3_000;
      const run = await org.api.GET('/api/v1/runs/{id}', {
        params: { path: { id: runId }, query: { wait: 3 } },
      });
      // Before the wait was up: nothing changes before the delay is due, a minute away.
      expect(Date.now()).toBeLessThan(deadline);
      expect(run.response.status).toBe(200);
      expect(run.data!.status).toBe('waiting');
      expect(stepOf(run.data!, 'later')).toMatchObject({ status: 'waiting' });
      await subscriptionsBecome(runId, 0);
    });

    it('waits through a retry that falls due before N seconds', async () => {
      // The first attempt fails once the app lets it go; the retry, a second later, succeeds.
      const gate = hold(500, { status: 200, body: { ok: true } });
      const call = nodes.action(
        'call',
        'http__request',
        { method: 'GET', url: `${target.url}${gate.path}` },
        { connectionId, retry: { attempts: 1, backoffSeconds: 1 } },
      );
      const workflowId = await workflow(org.api, chainOf(nodes.trigger('t'), call, nodes.alwaysTrue('c')));
      const started = await startRun(org.api, workflowId, {});
      const runId = started.data!.id;
      await waitFor(() => (target.requestsTo(gate.path).length === 1 ? true : undefined), {
        what: 'the first attempt to reach the app',
      });
      const waiting = org.api.GET('/api/v1/runs/{id}', {
        params: { path: { id: runId }, query: { wait: 30 } },
      });
      await subscriptionsBecome(runId, 1);
      gate.release();
      const run = await waiting;
      expect(run.response.status).toBe(200);
      expect(run.data!.status).toBe('complete');
      expect(stepOf(run.data!, 'call')).toMatchObject({ status: 'done', error: null });
      expect(target.requestsTo(gate.path)).toHaveLength(2);
    });

    it('answers once the run is paused', async () => {
      const { runId, gate } = await heldRun([nodes.alwaysTrue('c')]);
      const deadline = Date.now() + 30_000;
      const waiting = org.api.GET('/api/v1/runs/{id}', {
        params: { path: { id: runId }, query: { wait: 30 } },
      });
      await subscriptionsBecome(runId, 1);
      const pausing = await org.api.POST('/api/v1/runs/{id}/pause', { params: { path: { id: runId } } });
      expect(pausing.data!.status).toBe('waitingForPause');
      // The held step finishes; nothing after it starts, and the run is paused.
      gate.release();
      const run = await waiting;
      // Before the wait was up: only a resume moves a paused run.
      expect(Date.now()).toBeLessThan(deadline);
      expect(run.data!.status).toBe('paused');
      expect(run.data!.steps.map((step) => [step.nodeId, step.status])).toEqual([
        ['t', 'done'],
        ['call', 'done'],
      ]);
      await org.api.POST('/api/v1/runs/{id}/resume', { params: { path: { id: runId } } });
      const resumed = await org.api.GET('/api/v1/runs/{id}', {
        params: { path: { id: runId }, query: { wait: 30 } },
      });
      expect(resumed.data!.status).toBe('complete');
    });

    it('answers the run as it stands once N seconds pass', async () => {
      const { runId, gate } = await heldRun();
      const began = Date.now();
      const run = await org.api.GET('/api/v1/runs/{id}', {
        params: { path: { id: runId }, query: { wait: 1 } },
      });
      const took = Date.now() - began;
      expect(run.response.status).toBe(200);
      expect(run.data!.status).toBe('running');
      expect(stepOf(run.data!, 'call')).toMatchObject({ status: 'running' });
      expect(took).toBeGreaterThanOrEqual(1_000);
      expect(took).toBeLessThan(5_000);
      gate.release();
      // wait=0 and no wait answer at once, as the contract's route does.
      const final = await org.api.GET('/api/v1/runs/{id}', {
        params: { path: { id: runId }, query: { wait: 30 } },
      });
      expect(final.data!.status).toBe('complete');
      expect(
        (await org.api.GET('/api/v1/runs/{id}', { params: { path: { id: runId }, query: { wait: 0 } } }))
          .data,
      ).toEqual(final.data);
      expect((await org.api.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } })).data).toEqual(
        final.data,
      );
    });

    it('refuses a wait that is not whole seconds from 0 to 60 with invalid_request', async () => {
      const { runId, gate } = await heldRun();
      gate.release();
      // Query strings the document refuses, as they are.
      for (const value of ['-1', '61', '1.5', 'abc', '', '1e1', '0x10', '5&wait=6']) {
        const refused = await org.api.raw.get<ErrorBody>(`/api/v1/runs/${runId}?wait=${value}`);
        expect({ value, status: refused.status, code: refused.body.error?.code }).toEqual({
          value,
          status: 400,
          code: 'invalid_request',
        });
        expect(refused.body.error.details!.issues!.length).toBeGreaterThan(0);
        for (const issue of refused.body.error.details!.issues!) expect(issue.path).toBe('wait');
      }
    });

    it("answers run_not_found for another organization's run and an unknown id, at once", async () => {
      const { runId, gate } = await heldRun();
      const began = Date.now();
      for (const path of [
        `/api/v1/runs/${runId}?wait=30`,
        '/api/v1/runs/01900000-0000-7000-8000-000000000000?wait=30',
        '/api/v1/runs/not.a*run?wait=30',
      ]) {
        // Ids as a client might write them, unknown and malformed alike: the paths as they are.
        const refused = await other.api.raw.get<ErrorBody>(path);
        expect({ path, status: refused.status, code: refused.body.error?.code }).toEqual({
          path,
          status: 404,
          code: 'run_not_found',
        });
      }
      expect(Date.now() - began).toBeLessThan(5_000);
      gate.release();
    });

    it('counts as one request against the rate limit', async () => {
      const { runId, gate } = await heldRun();
      const before = Number(
        (await org.api.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } })).response.headers.get(
          'ratelimit-remaining',
        ),
      );
      const waited = await org.api.GET('/api/v1/runs/{id}', {
        params: { path: { id: runId }, query: { wait: 2 } },
      });
      expect(waited.response.status).toBe(200);
      expect(waited.data!.status).toBe('running');
      expect(Number(waited.response.headers.get('ratelimit-remaining'))).toBe(before - 1);
      const after = await org.api.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } });
      expect(Number(after.response.headers.get('ratelimit-remaining'))).toBe(before - 2);
      gate.release();
    });
  });

  describe('POST /workflows/{id}/runs with Prefer: wait=N', () => {
    it('answers 201 with the finished run and Preference-Applied', async () => {
      const gate = hold();
      const workflowId = await workflow(
        org.api,
        chainOf(nodes.trigger('t'), held('call', gate), nodes.alwaysTrue('c')),
      );
      const starting = startRun(org.api, workflowId, {}, { Prefer: 'respond-async, wait=30' });
      await waitFor(() => (target.requestsTo(gate.path).length === 1 ? true : undefined));
      gate.release();
      const started = await starting;
      expect(started.response.status).toBe(201);
      expect(started.response.headers.get('preference-applied')).toBe('wait=30');
      expect(started.data!.status).toBe('complete');
      expect(started.data!.steps.map((step) => step.status)).toEqual(['done', 'done', 'done']);
    });

    it('waits through a delay that falls due before N seconds', async () => {
      const workflowId = await workflow(
        org.api,
        chainOf(nodes.trigger('t'), nodes.delay('pause', 2), nodes.alwaysTrue('end')),
      );
      const started = await startRun(org.api, workflowId, {}, { Prefer: 'wait=10' });
      expect(started.response.status).toBe(201);
      expect(started.response.headers.get('preference-applied')).toBe('wait=10');
      expect(started.data!.status).toBe('complete');
      expect(started.data!.steps.map((step) => [step.nodeId, step.status])).toEqual([
        ['t', 'done'],
        ['pause', 'done'],
        ['end', 'done'],
      ]);
    });

    it('answers at a delay due after N seconds, and after N seconds with the run as it stands; clamps N to 60', async () => {
      const gate = hold();
      const workflowId = await workflow(
        org.api,
        chainOf(nodes.trigger('t'), held('call', gate), nodes.delay('later', 3600)),
      );
      const began = Date.now();
      const timedOut = await startRun(org.api, workflowId, {}, { Prefer: 'wait=1' });
      expect(Date.now() - began).toBeGreaterThanOrEqual(1_000);
      expect(timedOut.response.status).toBe(201);
      expect(timedOut.response.headers.get('preference-applied')).toBe('wait=1');
      expect(timedOut.data!.status).toBe('running');

      const second = hold();
      const delayed = await workflow(
        org.api,
        chainOf(nodes.trigger('t'), held('call', second), nodes.delay('later', 3600)),
      );
      const starting = startRun(org.api, delayed, {}, { Prefer: 'wait=600' });
      await waitFor(() => (target.requestsTo(second.path).length === 1 ? true : undefined));
      second.release();
      const waiting = await starting;
      expect(waiting.response.headers.get('preference-applied')).toBe('wait=60');
      expect(waiting.data!.status).toBe('waiting');
      gate.release();
    });

    it('leaves a start without a readable wait preference as the contract has it', async () => {
      const workflowId = await workflow(org.api, chainOf(nodes.trigger('t'), nodes.alwaysTrue('c')));
      for (const prefer of [undefined, 'respond-async', 'wait=soon']) {
        const started = await startRun(
          org.api,
          workflowId,
          {},
          prefer === undefined ? {} : { Prefer: prefer },
        );
        expect(started.response.status).toBe(201);
        expect(started.response.headers.get('preference-applied')).toBeNull();
      }
    });

    it('waits on an idempotent replay too', async () => {
      const gate = hold();
      const workflowId = await workflow(org.api, chainOf(nodes.trigger('t'), held('call', gate)));
      const key = `live-${Date.now()}`;
      const first = await startRun(org.api, workflowId, {}, { 'Idempotency-Key': key, Prefer: 'wait=1' });
      expect(first.response.status).toBe(201);
      expect(first.data!.status).toBe('running');
      const replaying = startRun(org.api, workflowId, {}, { 'Idempotency-Key': key, Prefer: 'wait=30' });
      await subscriptionsBecome(first.data!.id, 1);
      gate.release();
      const replayed = await replaying;
      expect(replayed.response.status).toBe(201);
      expect(replayed.response.headers.get('idempotent-replayed')).toBe('true');
      expect(replayed.response.headers.get('preference-applied')).toBe('wait=30');
      expect(replayed.data).toMatchObject({ id: first.data!.id, status: 'complete' });
    });
  });

  describe('GET /runs/{id}/stream', () => {
    it('sends every recorded step change in order, then end, and closes', async () => {
      const first = hold();
      const second = hold();
      const workflowId = await workflow(
        org.api,
        chainOf(nodes.trigger('t'), held('one', first), held('two', second), nodes.alwaysTrue('c')),
      );
      const started = await startRun(org.api, workflowId, {});
      const runId = started.data!.id;
      // Opened once the first call is held, so the run is surely `running` with its step started.
      await waitFor(() => (target.requestsTo(first.path).length === 1 ? true : undefined), {
        what: 'the first held call to reach the app',
      });
      const stream = await openStream(stack.baseUrl, runId, { authorization: `Bearer ${org.apiKey}` });
      expect(stream.status).toBe(200);
      expect(stream.headers.get('cache-control')).toContain('no-cache');

      const opening = await stream.next();
      expect(opening).toMatchObject({ event: 'run', data: { id: runId, status: 'running' } });
      expect(runIn(opening).steps.map((step) => [step.nodeId, step.status])).toEqual([
        ['t', 'done'],
        ['one', 'running'],
      ]);
      first.release();
      const untilSecondRuns: SseEvent[] = [];
      for (;;) {
        const event = await stream.next();
        if (!event) throw new Error(`the stream ended early, after ${JSON.stringify(untilSecondRuns)}`);
        untilSecondRuns.push(event);
        if (event.event === 'step' && event.data.nodeId === 'two') break;
      }
      second.release();
      const rest = await stream.rest();
      const seen = [...untilSecondRuns, ...rest].map((sent) =>
        sent.event === 'step'
          ? `step ${sent.data.nodeId} ${sent.data.status}`
          : `${sent.event} ${sent.data.status}`,
      );
      expect(seen).toEqual([
        'step one done',
        'step two running',
        'step two done',
        'step c done',
        'status complete',
        'end complete',
      ]);
      const complete = (await org.api.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } })).data!;
      expect(untilSecondRuns[0]!.data).toEqual(complete.steps[1]);
      expect(rest.find((event) => event.event === 'status')!.data).toEqual({
        id: runId,
        status: 'complete',
        reply: complete.reply,
        error: null,
      });
      await subscriptionsBecome(runId, 0);
    });

    it('works with the session cookie a browser EventSource sends', async () => {
      const member = await createMember(stack, org.organizationId);
      const cookie = await sessionCookie(stack, member.email, member.password);
      const { runId, gate } = await heldRun();
      const stream = await openStream(stack.baseUrl, runId, { cookie });
      expect(stream.status).toBe(200);
      expect(await stream.next()).toMatchObject({ event: 'run', data: { id: runId, status: 'running' } });
      gate.release();
      expect((await stream.rest()).map((event) => event.event)).toEqual(['step', 'status', 'end']);

      // A finished run: the whole run, then end at once.
      const again = await openStream(stack.baseUrl, runId, { cookie });
      expect((await again.rest()).map((event) => [event.event, event.data.status])).toEqual([
        ['run', 'complete'],
        ['end', 'complete'],
      ]);
    });

    it("answers run_not_found as JSON for another organization's run and an unknown one", async () => {
      const { runId, gate } = await heldRun();
      for (const id of [runId, '01900000-0000-7000-8000-000000000000', 'not.a*run']) {
        const refused = await openStream(stack.baseUrl, id, { authorization: `Bearer ${other.apiKey}` });
        expect({ status: refused.status, code: refused.errorBody?.error?.code }).toEqual({
          status: 404,
          code: 'run_not_found',
        });
      }
      await subscriptionsBecome(runId, 0);
      gate.release();
    });

    it('shares one subscription per run and leaves nothing behind when clients disconnect', async () => {
      const { runId, gate } = await heldRun();
      const auth = { authorization: `Bearer ${org.apiKey}` };
      const one = await openStream(stack.baseUrl, runId, auth);
      const two = await openStream(stack.baseUrl, runId, auth);
      await Promise.all([one.next(), two.next()]);
      expect(await subscriptionsTo(runId)).toBe(1);
      one.abort();
      // The other stream still listens on the one subscription.
      await subscriptionsBecome(runId, 1);
      two.abort();
      await subscriptionsBecome(runId, 0);

      // A wait that its client leaves lets go of the run too.
      const waitGone = new AbortController();
      const waiting = fetch(`${stack.baseUrl}/api/v1/runs/${runId}?wait=60`, {
        headers: auth,
        signal: waitGone.signal,
      }).catch((error: unknown) => error);
      await subscriptionsBecome(runId, 1);
      waitGone.abort();
      expect(await waiting).toMatchObject({ name: 'AbortError' });
      await subscriptionsBecome(runId, 0);
      gate.release();
    });
  });

  it('caps the streams and waits an organization holds open on a gateway', async () => {
    const { baseUrl, process: gateway } = await startExtraGateway(stack, 'gateway-live-holds', {
      LIVE_HOLDS_PER_ORGANIZATION: '1',
    });
    try {
      const { workflowId, runId, gate } = await heldRun();
      const auth = { authorization: `Bearer ${org.apiKey}` };
      const first = await openStream(baseUrl, runId, auth);
      expect(first.status).toBe(200);
      expect((await first.next())?.event).toBe('run');

      const second = await openStream(baseUrl, runId, auth);
      expect(second.status).toBe(429);
      expect(second.errorBody!.error).toMatchObject({
        code: 'rate_limited',
        details: { resource: 'streams', limit: 1 },
      });
      expect(second.headers.get('retry-after')).toBe('5');
      // Waits are preferences: past the cap they answer at once, with the run as it stands. Were
      // they held, these would wait for the held call, which is let go only at the end.
      const limited = new ApiClient(baseUrl, org.apiKey);
      const read = await limited.GET('/api/v1/runs/{id}', {
        params: { path: { id: runId }, query: { wait: 60 } },
      });
      expect({ status: read.response.status, body: read.data }).toMatchObject({
        status: 200,
        body: { id: runId, status: 'running' },
      });
      const started = await startRun(limited, workflowId, {}, { Prefer: 'wait=60' });
      expect(started.response.status).toBe(201);
      expect(started.response.headers.get('preference-applied')).toBeNull();
      // Another organization's holds are its own: it gets as far as not finding the run.
      const elsewhere = await openStream(baseUrl, runId, { authorization: `Bearer ${other.apiKey}` });
      expect(elsewhere.errorBody?.error.code).toBe('run_not_found');

      first.abort();
      await waitFor(
        async () => {
          const again = await openStream(baseUrl, runId, auth);
          again.abort();
          return again.status === 200 ? true : undefined;
        },
        { what: 'the closed stream to give its hold back' },
      );
      gate.release();
    } finally {
      await gateway.stop();
    }
  });

  it('sends heartbeats, and closes open streams when the gateway shuts down', async () => {
    const { baseUrl, process: gateway } = await startExtraGateway(stack, 'gateway-live-runs', {
      RUN_STREAM_HEARTBEAT_MS: '100',
    });
    try {
      const { runId, gate } = await heldRun();
      const stream = await openStream(baseUrl, runId, { authorization: `Bearer ${org.apiKey}` });
      expect((await stream.next())?.event).toBe('run');
      // Nothing changes while the call is held: only heartbeats come, which next() counts and skips.
      const pending = stream.next();
      await waitFor(() => (stream.comments >= 2 ? true : undefined), { what: 'two heartbeats' });
      const began = Date.now();
      const [, last] = await Promise.all([gateway.stop(), pending.catch(() => undefined)]);
      // Closed without `end`, since the run is not over: an EventSource reconnects elsewhere.
      expect(last).toBeUndefined();
      // Well before the 5 s after which the test process would have been killed.
      expect(Date.now() - began).toBeLessThan(4_000);
      gate.release();
    } finally {
      await gateway.stop();
    }
  });
});
