import {
  adminCli,
  ApiClient,
  createDatabase,
  cutOffDatabase,
  databaseUrl,
  dropDatabase,
  freePort,
  RawClient,
  type RawResponse,
  restoreDatabase,
  runMigrations,
  runningStack,
  type ServiceProcess,
  startService,
  TestNatsServer,
  waitFor,
} from '#testing';
import type { HealthCheckResult } from '@nestjs/terminus';

const stack = runningStack();

/**
 * Liveness and readiness of real processes. The outage tests take a dependency away from processes
 * of their own (a database made for the test, a NATS server of the test's own), never from the
 * stack the other tests share.
 */
describe('health', () => {
  const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

  interface Probed {
    process: ServiceProcess;
    /** The probes are Terminus's, on a port of their own: not routes of the API's document. */
    probes: RawClient;
  }

  /** A service process on a health port of its own, with the stack's settings overridden by `env`. */
  async function startProbed(app: string, env: Record<string, string>): Promise<Probed> {
    const port = await freePort();
    const process = await startService(app, {
      name: `${app}-health`,
      env: { ...stack.env, ...env, HEALTH_PORT: String(port) },
      readyUrl: `http://127.0.0.1:${port}/health/ready`,
    });
    return { process, probes: new RawClient(`http://127.0.0.1:${port}`) };
  }

  /** Polls a probe until it answers `status`; a process that died on the way fails it. */
  const answers = ({ process, probes }: Probed, path: string, status: number) =>
    waitFor<RawResponse<HealthCheckResult>>(
      async () => {
        if (process.child.exitCode !== null || process.child.signalCode !== null) {
          throw new Error(`${process.name} exited:\n${process.output().slice(-2_000)}`);
        }
        const response = await probes.get<HealthCheckResult>(path);
        return response.status === status ? response : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 100, what: `${process.name} ${path} to answer ${status}` },
    );

  it('keeps the constant /api/health on the gateway, beside its liveness and readiness', async () => {
    const gateway = new ApiClient(stack.baseUrl);
    const health = await gateway.GET('/api/health');
    expect({ status: health.response.status, body: health.data }).toMatchObject({
      status: 200,
      body: { status: 'ok' },
    });
    const ready = await gateway.raw.get<HealthCheckResult>('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      status: 'ok',
      details: { nats: { status: 'up' }, nats_databases: { status: 'up' } },
    });
    expect(await gateway.raw.get<HealthCheckResult>('/health/live')).toMatchObject({
      status: 200,
      body: { status: 'ok', details: { event_loop: { status: 'up' } } },
    });
  });

  describe('when Postgres goes away', () => {
    const databaseName = `fm_test_health_${id}`;
    let nats: TestNatsServer;
    let env: Record<string, string>;
    let catalog: Probed;

    beforeAll(async () => {
      // A NATS server of its own: this catalog must not answer other tests' requests.
      const subjectPrefix = `t_health_${id}.`;
      nats = await TestNatsServer.start(subjectPrefix);
      env = {
        DATABASE_URL: databaseUrl(databaseName),
        NATS_URL: nats.url,
        NATS_SUBJECT_PREFIX: subjectPrefix,
        ...nats.credentials,
      };
      await createDatabase(databaseName);
      await runMigrations(['catalog'], { ...stack.env, ...env });
      catalog = await startProbed('catalog', env);
    });

    afterAll(async () => {
      await catalog?.process.stop();
      await nats?.stop();
      await dropDatabase(databaseName);
    });

    it('goes unready while staying live, and ready again when Postgres is back', async () => {
      const ready = await catalog.probes.get<HealthCheckResult>('/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body.details).toMatchObject({
        postgres: { status: 'up' },
        nats: { status: 'up' },
        nats_publisher: { status: 'up' },
      });
      // Leaves connections open in better-auth's pool as well as TypeORM's, for the outage to end.
      await adminCli(['org', 'create', '--name', 'Health'], { ...stack.env, ...env });

      await cutOffDatabase(databaseName);
      const unready = await answers(catalog, '/health/ready', 503);
      expect(unready.body).toMatchObject({
        status: 'error',
        // A ping on a pooled connection that was open at the cut reads the termination itself; one on
        // a new connection reads the refusal. Both are Postgres saying no.
        error: {
          postgres: {
            status: 'down',
            message: expect.stringMatching(
              /not currently accepting|terminating connection due to administrator/,
            ),
          },
        },
        info: { nats: { status: 'up' }, nats_publisher: { status: 'up' } },
      });
      expect((await catalog.probes.get('/health')).status).toBe(503);
      expect(await catalog.probes.get<HealthCheckResult>('/health/live')).toMatchObject({
        status: 200,
        body: { status: 'ok' },
      });

      await restoreDatabase(databaseName);
      expect((await answers(catalog, '/health/ready', 200)).body.status).toBe('ok');
    });
  });

  describe('when NATS goes away', () => {
    const databaseName = `fm_test_health_nats_${id}`;
    let nats: TestNatsServer;
    let runner: Probed;
    let gateway: Probed;

    beforeAll(async () => {
      nats = await TestNatsServer.start(stack.env.NATS_SUBJECT_PREFIX ?? '');
      await createDatabase(databaseName);
      const env = { DATABASE_URL: databaseUrl(databaseName), NATS_URL: nats.url, ...nats.credentials };
      await runMigrations(['runner'], { ...stack.env, ...env });
      runner = await startProbed('runner', env);
      const port = await freePort();
      const baseUrl = `http://127.0.0.1:${port}`;
      gateway = {
        process: await startService('gateway', {
          name: 'gateway-health',
          env: { ...stack.env, ...env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: baseUrl },
          readyUrl: `${baseUrl}/health/ready`,
        }),
        probes: new RawClient(baseUrl),
      };
    });

    afterAll(async () => {
      await Promise.all([runner?.process.stop(), gateway?.process.stop()]);
      await nats?.stop();
      await dropDatabase(databaseName);
    });

    it('reports the runner and the gateway unready, still live, and ready again after a restart', async () => {
      const ready = await runner.probes.get<HealthCheckResult>('/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body.details).toMatchObject({
        postgres: { status: 'up' },
        nats: { status: 'up' },
        nats_engine: { status: 'up' },
        runs_stream: { status: 'up', jobs: 0 },
      });

      await nats.kill();
      const runnerDown = await answers(runner, '/health/ready', 503);
      expect(runnerDown.body).toMatchObject({
        status: 'error',
        info: { postgres: { status: 'up' } },
        error: {
          nats: { status: 'down' },
          nats_engine: { status: 'down' },
          runs_stream: { status: 'down' },
        },
      });
      // Terminus's details, not the API's error shape: the gateway's own filter stays out of it.
      const gatewayDown = await answers(gateway, '/health/ready', 503);
      expect(gatewayDown.body).toMatchObject({
        status: 'error',
        error: { nats: { status: 'down' }, nats_databases: { status: 'down' } },
      });
      expect((await runner.probes.get('/health/live')).status).toBe(200);
      expect((await gateway.probes.get('/health/live')).status).toBe(200);
      const health = await new ApiClient(gateway.probes.baseUrl).GET('/api/health');
      expect({ status: health.response.status, body: health.data }).toMatchObject({
        status: 200,
        body: { status: 'ok' },
      });

      await nats.resume();
      await answers(runner, '/health/ready', 200);
      await answers(gateway, '/health/ready', 200);
    });
  });
});
