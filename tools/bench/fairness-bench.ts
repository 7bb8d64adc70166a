/**
 * Fairness between organizations (issue 28, item 1; docs/flow-control.md): organization B's
 * start-to-complete latency, one run at a time, on an idle service and while organization A queues
 * `--backlog` runs (default 50,000) through the API with `--clients` connections and the runners
 * drain them. B's runs are started with `Prefer: wait=30` and timed from the request to the answer,
 * the run final, as an API user sees it.
 *
 * `--app-ms N` gives both workflows a call to a local app answering after N ms (through the events
 * service, as an app action runs); 0 (the default) is the benchmarks' workflow of two conditions,
 * which calls nothing. `--share N` sets RUNNER_ORGANIZATION_SHARE and `--reserve N`
 * RUNNER_INLINE_RESERVE (a huge share and 0 turn fairness off).
 *
 *   npm run build && node dist/tools/bench/fairness-bench.js [--backlog 50000] [--clients 16]
 *     [--idle-runs 200] [--app-ms 0] [--share 32] [--reserve 4]
 *
 * It starts a stack of its own (fresh database, own NATS server), one process per service.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import {
  type ApiClient,
  chainOf,
  createConnection,
  createOrganization,
  nodes,
  type TestDiagram,
  ONE_ADDRESS_FOR_ALL,
  TestStack,
} from '#testing';
import pg from 'pg';

import { argument, benchContext, must } from './src/context.js';

const backlog = Number(argument('backlog', '50000'));
const clients = Number(argument('clients', '16'));
const idleRuns = Number(argument('idle-runs', '200'));
const appMs = Number(argument('app-ms', '0'));
const share = argument('share', '');
const reserve = argument('reserve', '');

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const round = (ms: number) => Math.round(ms * 10) / 10;

const app = createServer((request, response) => {
  request.resume();
  setTimeout(() => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"ok":true}');
  }, appMs);
});
await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/work`;

const context = benchContext();
const stack = await TestStack.start({
  LOG_LEVEL: 'warn',
  RATE_LIMIT_PER_HOUR: '100000000',
  ORGANIZATION_RATE_LIMIT_PER_HOUR: '100000000',
  ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true',
  ...ONE_ADDRESS_FOR_ALL,
  ...(share === '' ? {} : { RUNNER_ORGANIZATION_SHARE: share }),
  ...(reserve === '' ? {} : { RUNNER_INLINE_RESERVE: reserve }),
});
const db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
await db.connect();
try {
  const publish = async (api: ApiClient, name: string, diagram: TestDiagram) => {
    const project = must(await api.POST('/api/v1/projects', { body: { name } }), 201);
    const workflow = must(
      await api.POST('/api/v1/projects/{projectId}/workflows', {
        params: { path: { projectId: project.id } },
        body: { name, diagram },
      }),
      201,
    );
    must(await api.POST('/api/v1/workflows/{id}/publish', { params: { path: { id: workflow.id } } }), 201);
    return workflow.id;
  };
  const workflowOf = async (organizationId: string, api: ApiClient, name: string) => {
    if (appMs === 0) {
      return publish(
        api,
        name,
        chainOf(
          nodes.trigger('t'),
          nodes.condition('big', [{ left: '{{trigger.amount}}', operator: 'greater_than', right: '100' }]),
          nodes.condition('vip', [{ left: '{{trigger.customer}}', operator: 'starts_with', right: 'A' }]),
        ),
      );
    }
    const { connectionId } = await createConnection(stack.description, organizationId, 'http');
    return publish(api, name, chainOf(nodes.trigger('t'), nodes.httpCall('call', appUrl, { connectionId })));
  };
  const a = await createOrganization(stack.description, { name: 'A' });
  const b = await createOrganization(stack.description, { name: 'B' });
  const [workflowA, workflowB] = await Promise.all([
    workflowOf(a.organizationId, a.api, 'Backlog'),
    workflowOf(b.organizationId, b.api, 'Interactive'),
  ]);
  const input = JSON.stringify({ amount: 250, customer: 'Ada' });

  /** One run of B, started and waited for; its latency in ms. */
  const runB = async () => {
    const began = performance.now();
    const answer = await b.api.POST('/api/v1/workflows/{id}/runs', {
      params: { path: { id: workflowB }, header: { Prefer: 'wait=30' } },
      body: { input },
    });
    let run = must(answer, 201);
    // Without fairness a run can wait longer than the start waits for it: read it until it ends.
    while (!['complete', 'errored', 'terminated'].includes(run.status)) {
      run = must(
        await b.api.GET('/api/v1/runs/{id}', {
          params: { path: { id: run.id }, query: { wait: 30 } },
        }),
        200,
      );
    }
    if (run.status !== 'complete') throw new Error(`B's run ended ${run.status}: ${run.error}`);
    return performance.now() - began;
  };

  // Warm-up, then idle.
  for (let index = 0; index < 20; index += 1) await runB();
  const idle: number[] = [];
  for (let index = 0; index < idleRuns; index += 1) idle.push(await runB());

  const unfinishedOfA = async () => {
    const { rows } = await db.query<{ count: string }>(
      `SELECT count(*) FROM runner.runs WHERE organization_id = $1
          AND status NOT IN ('complete', 'errored', 'terminated')`,
      [a.organizationId],
    );
    return Number(rows[0]?.count ?? 0);
  };

  // A queues its backlog; B goes on one run at a time until A's backlog has drained.
  let queued = 0;
  let refused = 0;
  const began = performance.now();
  const enqueue = async () => {
    while (queued + refused < backlog) {
      queued += 1;
      const answer = await a.api.POST('/api/v1/workflows/{id}/runs', {
        params: { path: { id: workflowA } },
        body: { input },
      });
      if (answer.response.status !== 201) {
        queued -= 1;
        refused += 1;
      }
    }
  };
  let enqueued = 0;
  const enqueuing = Promise.all(Array.from({ length: clients }, enqueue)).then(() => {
    enqueued = performance.now();
  });
  const whileEnqueuing: number[] = [];
  const whileDraining: number[] = [];
  let drained = 0;
  let mostUnfinished = 0;
  let lastCheck = 0;
  for (;;) {
    const ms = await runB();
    (enqueued === 0 ? whileEnqueuing : whileDraining).push(ms);
    if (performance.now() - lastCheck > 1000) {
      lastCheck = performance.now();
      const unfinished = await unfinishedOfA();
      mostUnfinished = Math.max(mostUnfinished, unfinished);
      if (enqueued !== 0 && unfinished === 0) {
        drained = performance.now();
        break;
      }
    }
  }
  await enqueuing;

  const row = (phase: string, values: number[]) =>
    `| ${phase} | ${values.length} | ${round(percentile(values, 50))} | ${round(percentile(values, 99))} | ${round(
      percentile(values, 50) / percentile(idle, 50),
    )}× |`;
  console.log(context.line);
  console.log(
    `A: ${queued} runs queued in ${round((enqueued - began) / 1000)} s by ${clients} clients (${refused} refused), all ended ${round((drained - began) / 1000)} s after the first; at most ${mostUnfinished} unfinished at once. Workflow: ${appMs === 0 ? 'trigger and two conditions' : `a call to an app answering in ${appMs} ms`}. RUNNER_ORGANIZATION_SHARE ${share || 'default'}, RUNNER_INLINE_RESERVE ${reserve || 'default'}.`,
  );
  console.log('');
  console.log("| B's runs, one at a time | runs | p50 (ms) | p99 (ms) | p50 vs idle |");
  console.log('| --- | --- | --- | --- | --- |');
  console.log(row('idle service', idle));
  console.log(row('while A queues its backlog', whileEnqueuing));
  console.log(row("while A's backlog drains", whileDraining));
} finally {
  await db.end();
  await stack.stop();
  app.close();
}
