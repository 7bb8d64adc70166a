import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { RunnerSubjects } from '#contracts';
import {
  chainOf,
  createAgent,
  createConnection,
  createDatabaseIn,
  createOrganization,
  createProject,
  createWorkflow,
  deliver,
  eventsOf,
  expectData,
  finished,
  freePort,
  nodes,
  type OrganizationFixture,
  RawClient,
  runReaches,
  runToEnd,
  ScriptedModel,
  type ServiceProcess,
  signedDelivery,
  startRun,
  startExtraGateway,
  startService,
  TestStack,
  waitFor,
} from '#testing';

/**
 * A real Prometheus (Debian's, as CI installs it) scrapes every process of a multi-process stack
 * (each service's health port, the gateway's metrics port) once a second; the test does runs that
 * complete and fail, an app event and SQL steps, then reads the counters back through Prometheus'
 * own query API. The all-in-one process is checked apart: one `/metrics` for all its apps.
 */
const PROMETHEUS = process.env.PROMETHEUS_BIN ?? '/usr/bin/prometheus';

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

class TestPrometheus {
  private constructor(
    readonly url: string,
    private readonly child: ChildProcess,
    private readonly dir: string,
    private readonly output: () => string,
  ) {}

  /** Starts Prometheus scraping `targets` (job name → `host:port`) every second. */
  static async start(targets: Record<string, string>): Promise<TestPrometheus> {
    const dir = mkdtempSync(join(tmpdir(), 'flowmesh-prometheus-'));
    const config = [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      'scrape_configs:',
      ...Object.entries(targets).flatMap(([job, target]) => [
        `  - job_name: ${job}`,
        `    static_configs:`,
        `      - targets: ['${target}']`,
      ]),
    ].join('\n');
    writeFileSync(join(dir, 'prometheus.yml'), `${config}\n`);
    const port = await freePort();
    const child = spawn(
      PROMETHEUS,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    const append = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    const prometheus = new TestPrometheus(`http://127.0.0.1:${port}`, child, dir, () => output);
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`Prometheus exited: ${output}`);
        const answer = await fetch(`${prometheus.url}/-/ready`).catch(() => undefined);
        return answer?.ok ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100, what: 'Prometheus to be ready' },
    );
    return prometheus;
  }

  async query(expression: string): Promise<Sample[]> {
    const answer = await fetch(`${this.url}/api/v1/query?query=${encodeURIComponent(expression)}`);
    const body = (await answer.json()) as { status: string; data?: { result: Sample[] }; error?: string };
    if (body.status !== 'success') throw new Error(`${expression}: ${body.error}`);
    return body.data!.result;
  }

  /** Polls `expression` until it answers a value `accept` takes; answers that value. */
  async valueOf(
    expression: string,
    accept: (value: number) => boolean = (value) => value > 0,
  ): Promise<number> {
    let last = 'no result';
    return waitFor(
      async () => {
        const result = await this.query(expression);
        last = JSON.stringify(result);
        const value = result.length === 1 ? Number(result[0].value[1]) : undefined;
        return value !== undefined && accept(value) ? value : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, what: `${expression} (last: ${last})` },
    ).catch((error: unknown) => {
      throw new Error(
        `${String(error)}; last answer ${last}; Prometheus said: ${this.output().slice(-2_000)}`,
      );
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The names of the metric families a `/metrics` text declares, in order (with repeats, if any). */
const familiesOf = (text: string): string[] =>
  [...text.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]);

describe('metrics', () => {
  describe('scraped by Prometheus from every process of a multi-process stack', () => {
    let stack: TestStack;
    let prometheus: TestPrometheus;
    let org: OrganizationFixture;
    let projectId: string;
    let metricsPort: number;
    let model: ScriptedModel;

    beforeAll(async () => {
      metricsPort = await freePort();
      model = await ScriptedModel.start();
      stack = await TestStack.start({
        ...model.gatewayEnv,
        METRICS_PORT: String(metricsPort),
        // The database and JetStream gauges are read this often rather than every 15 s.
        METRICS_POLL_MS: '500',
      });
      const targets: Record<string, string> = { gateway: `127.0.0.1:${metricsPort}` };
      for (const [name, url] of stack.healthUrls) targets[name] = new URL(url).host;
      prometheus = await TestPrometheus.start(targets);
      org = await createOrganization(stack.description);
      projectId = await createProject(org.api, 'Metrics');
    }, 180_000);

    afterAll(async () => {
      await prometheus?.stop();
      await stack?.stop();
      await model?.stop();
    });

    it('scrapes every process, each with its own process metrics', async () => {
      const jobs = ['gateway', ...stack.healthUrls.keys()];
      expect(jobs).toEqual(
        expect.arrayContaining(['catalog', 'workflow', 'runner', 'events', 'agent', 'database']),
      );
      await prometheus.valueOf('count(up == 1)', (count) => count === jobs.length);
      await prometheus.valueOf(
        'count(count by (job) (process_cpu_user_seconds_total))',
        (count) => count === jobs.length,
      );
    });

    it('never serves /metrics on the public port unless configured, and only /metrics on the metrics port', async () => {
      const publicAnswer = await new RawClient(stack.baseUrl).get('/metrics');
      expect(publicAnswer.status).toBe(404);
      const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      expect((await fetch(`http://127.0.0.1:${metricsPort}/api/v1/projects`)).status).toBe(404);
    });

    it('serves /metrics on the public port too, without credentials, when METRICS_ON_PUBLIC_PORT is true', async () => {
      const extra = await startExtraGateway(stack.description, 'gateway-public-metrics', {
        METRICS_ON_PUBLIC_PORT: 'true',
        METRICS_PORT: '0',
      });
      try {
        const answer = await new RawClient(extra.baseUrl).get('/metrics');
        expect(answer.status).toBe(200);
        expect(String(answer.body)).toMatch(/^# HELP flowmesh_http_requests_total /m);
        // Everything else on that port still asks for a credential.
        expect((await new RawClient(extra.baseUrl).get('/api/v1/projects')).status).toBe(401);
      } finally {
        await extra.process.stop();
      }
    });

    it('counts runs started and finished, run and step durations, HTTP requests by route template and NATS requests by subject', async () => {
      const ok = await createWorkflow(
        org.api,
        projectId,
        chainOf(nodes.trigger('start'), nodes.alwaysTrue('check')),
      );
      const databaseId = await createDatabaseIn(org.api, 'metrics');
      const sql = await createWorkflow(
        org.api,
        projectId,
        chainOf(nodes.trigger('start'), nodes.database('select', databaseId, 'SELECT 42 AS answer')),
      );
      const failing = await createWorkflow(
        org.api,
        projectId,
        chainOf(nodes.trigger('start'), nodes.database('broken', databaseId, 'SELECT * FROM no_such_table')),
      );
      expect((await runToEnd(org.api, ok)).status).toBe('complete');
      expect((await runToEnd(org.api, ok)).status).toBe('complete');
      expect((await runToEnd(org.api, sql, undefined, { timeoutMs: 30_000 })).status).toBe('complete');
      expect((await runToEnd(org.api, failing, undefined, { timeoutMs: 30_000 })).status).toBe('errored');
      expect((await new RawClient(stack.baseUrl).get('/no/such/route')).status).toBe(404);

      await prometheus.valueOf('sum(flowmesh_runs_started_total{job="runner",trigger="api"})', (n) => n >= 4);
      await prometheus.valueOf('sum(flowmesh_runs_finished_total{status="complete"})', (n) => n >= 3);
      await prometheus.valueOf('sum(flowmesh_runs_finished_total{status="errored"})', (n) => n >= 1);
      await prometheus.valueOf('sum(flowmesh_run_duration_seconds_count{status="errored"})', (n) => n >= 1);
      await prometheus.valueOf(
        'sum(flowmesh_step_duration_seconds_count{node_type="condition",outcome="done"})',
        (n) => n >= 2,
      );
      await prometheus.valueOf(
        'sum(flowmesh_step_duration_seconds_count{node_type="database",outcome="error"})',
      );
      await prometheus.valueOf(
        'sum(flowmesh_http_requests_total{job="gateway",route="/api/v1/workflows/:id/runs",method="POST",status="201"})',
        (n) => n >= 4,
      );
      await prometheus.valueOf(
        'sum(flowmesh_http_requests_total{job="gateway",route="unmatched",method="GET",status="404"})',
      );
      await prometheus.valueOf(
        'sum(flowmesh_http_request_duration_seconds_count{route="/api/v1/workflows/:id/runs",method="POST"})',
        (n) => n >= 4,
      );
      const subject = RunnerSubjects.runsStart.bare;
      await prometheus.valueOf(
        `sum(flowmesh_nats_client_requests_total{job="gateway",subject="${subject}",outcome="ok"})`,
        (n) => n >= 4,
      );
      await prometheus.valueOf(
        `sum(flowmesh_nats_handled_requests_total{job="runner",subject="${subject}",outcome="ok"})`,
        (n) => n >= 4,
      );
      await prometheus.valueOf(
        `sum(flowmesh_nats_client_request_duration_seconds_count{job="gateway",subject="${subject}"})`,
        (n) => n >= 4,
      );
      // A request refused by its handler is counted under its error code, on both sides.
      expect(
        (
          await org.api.GET('/api/v1/runs/{id}', {
            params: { path: { id: '0190b5e4-0000-7000-8000-000000000000' } },
          })
        ).response.status,
      ).toBe(404);
      await prometheus.valueOf(`sum(flowmesh_nats_handled_requests_total{job="runner",outcome!="ok"})`);
      // No label carries an id: every subject is a catalog name, every route a template.
      const routes = await prometheus.query('count by (route) (flowmesh_http_requests_total)');
      for (const { metric } of routes) expect(metric.route).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}/);
    });

    it('counts SQL batches on the database shard, their duration and result bytes, and its disk', async () => {
      await prometheus.valueOf('sum(flowmesh_duckdb_batches_total{job="database",outcome="ok"})');
      await prometheus.valueOf('sum(flowmesh_duckdb_batches_total{job="database",outcome!="ok"})');
      await prometheus.valueOf(
        'sum(flowmesh_duckdb_batch_duration_seconds_count{job="database"})',
        (n) => n >= 2,
      );
      await prometheus.valueOf('sum(flowmesh_duckdb_batch_result_bytes_sum{job="database"})');
      await prometheus.valueOf('flowmesh_database_disk_free_bytes{job="database"}');
      await prometheus.valueOf(
        'flowmesh_database_disk_size_bytes{job="database"} - flowmesh_database_disk_free_bytes{job="database"}',
      );
    });

    it('counts app events received and what they did', async () => {
      const hook = await createConnection(stack.description, org.organizationId, 'webhook');
      const workflowId = await createWorkflow(org.api, projectId, {
        nodes: [nodes.webhook('hook', hook.connectionId)],
        edges: [],
      });
      const delivery = signedDelivery(hook.secret!, { marker: 'metrics' });
      expect((await deliver(stack.baseUrl, hook.connectionId, delivery)).status).toBe(202);
      expect((await deliver(stack.baseUrl, hook.connectionId, delivery)).status).toBe(202);
      await waitFor(
        async () => ((await eventsOf(org.api, workflowId))[0]?.outcomes.length ? true : undefined),
        {
          timeoutMs: 20_000,
          what: 'the event to start its run',
        },
      );
      await prometheus.valueOf(
        'sum(flowmesh_app_events_received_total{job="events",app="webhook",result="stored"})',
      );
      await prometheus.valueOf(
        'sum(flowmesh_app_events_received_total{job="events",app="webhook",result="duplicate"})',
      );
      await prometheus.valueOf('sum(flowmesh_app_event_outcomes_total{job="events",outcome="started"})');
      await prometheus.valueOf('sum(flowmesh_runs_started_total{job="runner",trigger="event"})');
    });

    it('counts the model tokens and calls of an Agent step by provider, model and type', async () => {
      const agent = await createAgent(org.api, { name: 'metered' });
      model.queue({ text: 'Done.', usage: { prompt: 1_234, completion: 56, reasoning: 7, cached: 300 } });
      const workflowId = await createWorkflow(
        org.api,
        projectId,
        chainOf(nodes.trigger('start'), nodes.agent('ask', agent.id, 'Do the task.')),
      );
      expect((await runToEnd(org.api, workflowId, undefined, { timeoutMs: 30_000 })).status).toBe('complete');
      const series = (type: string) =>
        `sum(flowmesh_model_tokens_total{job="agent",provider="gateway",model="scripted-default",type="${type}"})`;
      await prometheus.valueOf(series('input'), (n) => n === 1_234);
      await prometheus.valueOf(series('output'), (n) => n === 56);
      await prometheus.valueOf(series('reasoning'), (n) => n === 7);
      await prometheus.valueOf(series('cached'), (n) => n === 300);
      await prometheus.valueOf(
        'sum(flowmesh_model_calls_total{job="agent",provider="gateway",model="scripted-default",outcome="ok"})',
        (n) => n === 1,
      );
      await prometheus.valueOf(
        'sum(flowmesh_step_duration_seconds_count{job="runner",node_type="agent",outcome="done"})',
      );
    });

    it('reports waiting runs, the queue, approvals and the job consumers from polled gauges', async () => {
      const waiting = await createWorkflow(
        org.api,
        projectId,
        chainOf(nodes.trigger('start'), nodes.delay('wait', 3_600)),
      );
      const run = expectData(await startRun(org.api, waiting), 201);
      await runReaches(org.api, run.id, ['waiting']);
      await prometheus.valueOf('max(flowmesh_runs_unfinished{job="runner",status="waiting"})', (n) => n >= 1);
      await prometheus.valueOf('max(flowmesh_runs_unfinished{job="runner",status="paused"})', (n) => n === 0);
      await prometheus.valueOf('max(flowmesh_runs_oldest_queued_age_seconds{job="runner"})', (n) => n >= 0);
      await prometheus.valueOf('max(flowmesh_approvals_pending{job="agent"})', (n) => n === 0);
      await prometheus.valueOf('count(flowmesh_approvals_expiring{job="agent"})', (n) => n === 2);
      // The runner's and the events service's job consumers.
      await prometheus.valueOf('count(flowmesh_jetstream_consumer_pending_messages)', (n) => n === 2);
      await prometheus.valueOf('count(flowmesh_jetstream_consumer_redelivered_messages)', (n) => n === 2);
      expectData(
        await org.api.POST('/api/v1/runs/{id}/cancel', { params: { path: { id: run.id } }, body: {} }),
        200,
      );
      expect((await finished(org.api, run.id)).status).toBe('terminated');
      await prometheus.valueOf('sum(flowmesh_runs_finished_total{status="terminated"})');
      await prometheus.valueOf(
        'max(flowmesh_runs_unfinished{job="runner",status="waiting"})',
        (n) => n === 0,
      );
    });
  });

  describe('in the all-in-one process', () => {
    let stack: TestStack;
    let metricsPort: number;
    let probesOnly: ServiceProcess | undefined;

    beforeAll(async () => {
      metricsPort = await freePort();
      stack = await TestStack.start(
        { METRICS_PORT: String(metricsPort) },
        { services: ['catalog', 'events', 'workflow', 'runner'], allInOne: true },
      );
    }, 120_000);

    afterAll(async () => {
      await probesOnly?.stop();
      await stack?.stop();
    });

    it('serves one /metrics, on the gateway metrics port, with every app of the process in it once', async () => {
      const org = await createOrganization(stack.description);
      const projectId = await createProject(org.api);
      const workflowId = await createWorkflow(
        org.api,
        projectId,
        chainOf(nodes.trigger('start'), nodes.alwaysTrue('check')),
      );
      expect((await runToEnd(org.api, workflowId)).status).toBe('complete');
      const text = await waitFor(async () => {
        const body = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
        return /flowmesh_runs_finished_total\{status="complete"\} [1-9]/.test(body) ? body : undefined;
      });
      const families = familiesOf(text);
      expect(families.length).toBe(new Set(families).size);
      expect(families).toEqual(
        expect.arrayContaining([
          'flowmesh_http_requests_total',
          'flowmesh_nats_client_requests_total',
          'flowmesh_nats_handled_requests_total',
          'flowmesh_runs_started_total',
          'flowmesh_runs_unfinished',
          'flowmesh_jetstream_consumer_pending_messages',
          'process_cpu_user_seconds_total',
          'nodejs_eventloop_lag_seconds',
        ]),
      );
      // The gateway and the runner share the process: the runner's handled side of the gateway's request.
      expect(text).toMatch(
        new RegExp(
          `flowmesh_nats_handled_requests_total\\{subject="${RunnerSubjects.runsStart.bare}",outcome="ok"\\} [1-9]`,
        ),
      );
      expect((await new RawClient(stack.baseUrl).get('/metrics')).status).toBe(404);
    });

    it('serves /metrics on the launcher probe port when the process runs no gateway', async () => {
      const port = await freePort();
      probesOnly = await startService('all-in-one', {
        name: 'runner-only',
        env: { ...stack.env, SERVICES: 'runner', HEALTH_PORT: String(port) },
        readyUrl: `http://127.0.0.1:${port}/health/ready`,
        timeoutMs: 60_000,
      });
      const answer = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(answer.status).toBe(200);
      const families = familiesOf(await answer.text());
      expect(families.length).toBe(new Set(families).size);
      expect(families).toEqual(
        expect.arrayContaining(['flowmesh_runs_unfinished', 'process_cpu_user_seconds_total']),
      );
      expect(families).not.toContain('flowmesh_http_requests_total');
    });
  });
});
