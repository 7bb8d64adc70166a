import { spawn } from 'node:child_process';

import {
  appEntry,
  chainOf,
  createOrganization,
  createProject,
  createWorkflow,
  expectData,
  freePort,
  nodes,
  RawClient,
  type ServiceProcess,
  startRun,
  startService,
  TestStack,
  WORKSPACE_ROOT,
} from '#testing';

/**
 * The launcher itself (the rest of the suite runs against the all-in-one process it starts): its
 * ready line, its probes, a set of apps split over two processes, and its stop. Its own stack: one
 * all-in-one process with catalog, events, workflow and the gateway, and a second one with the runner.
 */
describe('the all-in-one process', () => {
  let stack: TestStack;
  let main: ServiceProcess;

  beforeAll(async () => {
    // The ready and stopping lines are written at info.
    stack = await TestStack.start(
      { LOG_LEVEL: 'info' },
      { services: ['catalog', 'events', 'workflow'], allInOne: true },
    );
    main = stack.processes.get('all-in-one')!;
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('prints one line once every app it runs is ready, and its probe covers each of them', async () => {
    const readyLines = main.output().match(/Flowmesh is ready on [^"]*/g) ?? [];
    expect(readyLines).toEqual([
      expect.stringMatching(
        /^Flowmesh is ready on http:\/\/127\.0\.0\.1:\d+: catalog, events, workflow, gateway in one/,
      ),
    ]);
    const probe = await new RawClient(stack.baseUrl).get('/health/ready');
    expect(probe.status).toBe(200);
    expect(probe.body).toMatchObject({
      status: 'ok',
      details: {
        nats: { status: 'up' },
        catalog: { status: 'up' },
        events: { status: 'up' },
        workflow: { status: 'up' },
      },
    });
  });

  describe('with the runner in a second all-in-one process', () => {
    let runner: ServiceProcess;
    let probes: RawClient;

    beforeAll(async () => {
      const port = await freePort();
      probes = new RawClient(`http://127.0.0.1:${port}`);
      runner = await startService('all-in-one', {
        name: 'runner-process',
        env: { ...stack.env, SERVICES: 'runner', HEALTH_PORT: String(port) },
        readyUrl: `${probes.baseUrl}/health/ready`,
        timeoutMs: 60_000,
      });
    }, 90_000);

    afterAll(async () => {
      await runner?.stop();
    });

    it('serves the probes on HEALTH_PORT without a gateway', async () => {
      const ready = await probes.get('/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'ok', details: { runner: { status: 'up' } } });
      expect((await probes.get('/health/live')).status).toBe(200);
      expect((await probes.get('/nowhere')).status).toBe(404);
    });

    it('runs a workflow through apps split over the two processes, every step recorded', async () => {
      const org = await createOrganization(stack.description);
      const projectId = await createProject(org.api, 'Split');
      const workflowId = await createWorkflow(
        org.api,
        projectId,
        chainOf(nodes.trigger('start'), nodes.alwaysTrue('check'), nodes.alwaysTrue('again')),
        { name: 'Split' },
      );

      const started = expectData(await startRun(org.api, workflowId, {}, { Prefer: 'wait=30' }), 201);
      expect(started.status).toBe('complete');
      const run = await org.api.GET('/api/v1/runs/{id}', { params: { path: { id: started.id } } });
      expect(run.data?.steps.map((step) => [step.nodeId, step.status])).toEqual([
        ['start', 'done'],
        ['check', 'done'],
        ['again', 'done'],
      ]);
    });

    it('stops on SIGTERM and exits cleanly', async () => {
      await runner.stop();
      expect(runner.child.exitCode).toBe(0);
      expect(runner.output()).toMatch(/Flowmesh is stopping[\s\S]*runner stopped/);
    });
  });

  it('refuses a SERVICES list naming an app it does not know, saying which it knows', async () => {
    const child = spawn(process.execPath, [appEntry('all-in-one')], {
      cwd: WORKSPACE_ROOT,
      env: { ...process.env, ...stack.env, SERVICES: 'catalog,billing' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(output).toMatch(
      /SERVICES must list some of: catalog, database, events, agent, workflow, runner, gateway/,
    );
  });

  // Last: it stops the stack's own process.
  it('stops its apps on SIGTERM from the gateway back to catalog, each cleanly, and exits 0', async () => {
    await main.stop();
    expect(main.child.exitCode).toBe(0);
    // Ordered by the time each line was written: lines of one process can reach the pipe out of order.
    const stopped = main
      .output()
      .split('\n')
      .filter((line) => / (stopped|failed to stop)"/.test(line))
      .map((line) => JSON.parse(line) as { time: string; msg: string })
      .sort((a, b) => a.time.localeCompare(b.time))
      .map((line) => line.msg);
    expect(stopped).toEqual(['gateway stopped', 'workflow stopped', 'events stopped', 'catalog stopped']);
  });
});
