import {
  chainOf,
  createConnection,
  createOrganization,
  createProject,
  createWorkflow,
  deliver,
  eventsOf,
  expectData,
  HttpTarget,
  nodes,
  type OrganizationFixture,
  runReaches,
  runsOf,
  signedDelivery,
  startRun,
  stepOf,
  type TestDiagram,
  TestStack,
  waitFor,
} from '#testing';

/**
 * What a stack of its own can show: outgoing requests refused to private addresses (the shared stack
 * allows them for its local test server), and a crash of the events service or the runner while
 * events fan out, which must lose no accepted event and start no run twice.
 */
describe('events: private networks and crashes', () => {
  let stack: TestStack;
  let org: OrganizationFixture;
  let projectId: string;

  beforeAll(async () => {
    stack = await TestStack.start(
      { ACTIONS_ALLOW_PRIVATE_NETWORKS: 'false' },
      { services: ['catalog', 'workflow', 'runner', 'events'] },
    );
    org = await createOrganization(stack.description);
    projectId = await createProject(org.api, 'Recovery');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const publish = (diagram: TestDiagram) => createWorkflow(org.api, projectId, diagram, { name: 'Recovery' });

  it('refuses actions to loopback and private addresses unless private networks are allowed', async () => {
    const target = await HttpTarget.start();
    try {
      await createConnection(stack.description, org.organizationId, 'http');
      const port = new URL(target.url).port;
      for (const url of [
        `${target.url}/private`,
        `http://localhost:${port}/private`,
        'http://10.0.0.1/',
        // IPv4-compatible IPv6 forms of loopback and of the cloud metadata address.
        `http://[::7f00:1]:${port}/private`,
        'http://[::a9fe:a9fe]/latest/meta-data/',
      ]) {
        const workflowId = await publish(
          chainOf(
            nodes.trigger('t'),
            nodes.action('call', 'http__request', { method: 'GET', url, timeoutMs: 2_000 }),
          ),
        );
        const started = expectData(await startRun(org.api, workflowId, {}), 201);
        const run = await runReaches(org.api, started.id, ['errored'], {
          what: `run of ${url} to fail`,
          timeoutMs: 15_000,
          intervalMs: 50,
        });
        // Refused before connecting: not a connection that failed (ECONNREFUSED, ENETUNREACH).
        expect(stepOf(run, 'call')?.error).toMatch(
          /private address; requests to private networks are not allowed/,
        );
      }
      expect(target.received).toEqual([]);
    } finally {
      await target.stop();
    }
  });

  for (const victim of ['events', 'runner'] as const) {
    it(`loses no accepted event and starts no run twice when ${victim} is killed during fan-out`, async () => {
      const hook = await createConnection(stack.description, org.organizationId, 'webhook');
      const workflowId = await publish(
        chainOf(nodes.webhook('hook', hook.connectionId), nodes.alwaysTrue('c')),
      );
      const markers = Array.from({ length: 40 }, (_, index) => `${victim}-${index}`);
      const deliveries = markers.map((marker) => signedDelivery(hook.secret!, { marker }));
      const sending = Promise.all(
        deliveries.map((delivery) =>
          deliver(stack.baseUrl, hook.connectionId, delivery).catch(() => ({ status: 0 })),
        ),
      );
      // Kill once the first deliveries are in, while the rest arrive and fan out.
      await waitFor(async () => ((await eventsOf(org.api, workflowId)).length ? true : undefined), {
        intervalMs: 20,
      });
      await stack.processes.get(victim)!.kill('SIGKILL');
      const answers = await sending;
      await stack.startService(victim);

      // A delivery refused while the events service was down is sent again, as an app would.
      for (const [index, answer] of answers.entries()) {
        if (answer.status !== 202) {
          await waitFor(async () =>
            (await deliver(stack.baseUrl, hook.connectionId, deliveries[index]!)).status === 202
              ? true
              : undefined,
          );
        }
      }
      const events = await waitFor(
        async () => {
          const listed = await eventsOf(org.api, workflowId);
          return listed.length === markers.length && listed.every((event) => event.outcomes.length === 1)
            ? listed
            : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 200, what: 'every event to have its outcome' },
      );
      expect(events.map((event) => event.outcomes[0].outcome)).toEqual(markers.map(() => 'started'));
      const runs = await runsOf(org.api, workflowId);
      const byInput = new Map<string, number>();
      for (const run of runs) {
        const detail = await org.api.GET('/api/v1/runs/{id}', { params: { path: { id: run.id } } });
        const { marker } = JSON.parse(expectData(detail, 200).input) as { marker: string };
        byInput.set(marker, (byInput.get(marker) ?? 0) + 1);
      }
      expect([...byInput.keys()].sort()).toEqual([...markers].sort());
      expect([...byInput.values()].every((count) => count === 1)).toBe(true);
      expect(new Set(events.map((event) => event.outcomes[0].runId)).size).toBe(markers.length);
    }, 120_000);
  }
});
