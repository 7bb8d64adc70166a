import {
  chainOf,
  createOrganization,
  createProject,
  createWorkflow,
  InspectedProcess,
  nodes,
  type OrganizationFixture,
  startRun,
  TestStack,
  waitFor,
} from '#testing';

/**
 * The short version of the hour-long soak (`tools/bench/soak-bench.ts`, figures in
 * docs/reliability.md): clients loop over what an API client does most for a while, and the process's
 * heap after a full collection must end where it stood after the warm-up, and its open resources
 * (sockets, timers, handles) must fall back once the load stops. The bound, 6 MiB over 800 turns,
 * catches a leak of 8 KB a turn (keeping each run's record would be one); the heap grew 1.3 MiB over
 * 1,500 turns on its first runs, caches still filling, where the hour-long soak stays flat once they
 * are full.
 */
describe('a short soak', () => {
  const WARM_UP_TURNS = 100;
  const MEASURED_TURNS = 800;
  let stack: TestStack;
  let inspected: InspectedProcess;
  let org: OrganizationFixture;
  let workflowId: string;
  let projectId: string;

  beforeAll(async () => {
    stack = await TestStack.start(
      { RATE_LIMIT_PER_HOUR: '100000000', NODE_OPTIONS: '--inspect=127.0.0.1:0' },
      { allInOne: true },
    );
    inspected = await InspectedProcess.fromOutput(stack.processes.get('all-in-one')!.output());
    org = await createOrganization(stack.description);
    projectId = await createProject(org.api, 'Soak');
    workflowId = await createWorkflow(
      org.api,
      projectId,
      chainOf(nodes.trigger('t'), nodes.alwaysTrue('c'), nodes.alwaysTrue('d')),
      { name: 'Soak' },
    );
  }, 120_000);

  afterAll(async () => {
    inspected?.close();
    await stack?.stop();
  });

  /** `turns` turns over 4 clients: start a run and wait for it, read it, read the project. */
  async function load(turns: number): Promise<number> {
    let next = 0;
    let failures = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next++ < turns) {
          const started = await startRun(
            org.api,
            workflowId,
            { input: '{"amount": 120}' },
            { Prefer: 'wait=30' },
          );
          if (started.response.status !== 201 || started.data?.status !== 'complete') failures += 1;
          const runId = started.data?.id;
          const run = runId && (await org.api.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } }));
          if (!run || run.response.status !== 200) failures += 1;
          const project = await org.api.GET('/api/v1/projects/{id}', { params: { path: { id: projectId } } });
          if (project.response.status !== 200) failures += 1;
        }
      }),
    );
    return failures;
  }

  const total = (resources: Record<string, number>) =>
    Object.values(resources).reduce((sum, count) => sum + count, 0);

  it('keeps the heap and open resources flat under a steady load', async () => {
    expect(await load(WARM_UP_TURNS)).toBe(0);
    const before = await inspected.afterCollection();

    expect(await load(MEASURED_TURNS)).toBe(0);
    const after = await inspected.afterCollection();
    expect(after.heapMiB - before.heapMiB).toBeLessThan(6);

    // Keep-alive sockets and busy pool connections close when idle; nothing else may stay behind.
    await waitFor(
      async () => {
        const idle = await inspected.afterCollection();
        return total(idle.resources) <= total(before.resources) + 2 ? idle : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 1_000, what: 'open resources to fall back once idle' },
    );
  }, 240_000);
});
