/**
 * Fairness between organizations (issue 28, item 1; docs/flow-control.md): organization B's
 * start-to-complete latency, one run at a time, on an idle service and while organization A queues
 * `--backlog` runs (default 50,000) through the API with `--clients` connections (autocannon, in a
 * thread of its own) and the runners drain them. B's runs are started with `Prefer: wait=30` and
 * timed from the request to the answer, the run final, as an API user sees it; the medians of where
 * their time went are read from the runs' own timestamps.
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
import autocannon from 'autocannon';
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

/**
 * Where one of B's runs spent its time, from the run's own timestamps (ms, one clock): the request
 * until the run was written, until its first step, until its app call, the call, and the answer.
 */
interface Phases {
  accepted: number;
  started: number;
  toCall: number;
  call: number;
  answered: number;
}
interface Timed {
  ms: number;
  phases: Phases;
}

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

  /** One run of B, started and waited for; its latency in ms, and where the time went. */
  const runB = async () => {
    const sentAt = Date.now();
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
    const answeredAt = Date.now();
    const call = run.steps.find((step) => step.nodeId === 'call');
    const firstStep = Math.min(...run.steps.map((step) => Date.parse(step.startedAt)));
    const callStart = call ? Date.parse(call.startedAt) : firstStep;
    const callEnd = callStart + (call?.ms ?? 0);
    const phases: Phases = {
      accepted: Date.parse(run.createdAt) - sentAt,
      started: firstStep - Date.parse(run.createdAt),
      toCall: callStart - firstStep,
      call: callEnd - callStart,
      answered: answeredAt - callEnd,
    };
    return { ms: performance.now() - began, phases };
  };

  // Warm-up, then idle.
  for (let index = 0; index < 20; index += 1) await runB();
  const idle: Timed[] = [];
  for (let index = 0; index < idleRuns; index += 1) idle.push(await runB());

  const unfinishedOfA = async () => {
    const { rows } = await db.query<{ count: string }>(
      `SELECT count(*) FROM runner.runs WHERE organization_id = $1
          AND status NOT IN ('complete', 'errored', 'terminated')`,
      [a.organizationId],
    );
    return Number(rows[0]?.count ?? 0);
  };

  // A queues its backlog from a thread of its own (autocannon's worker), as a caller elsewhere
  // would: in this thread, its 16 clients' work would delay B's requests and the app's answers,
  // which the service has no part in. B goes on one run at a time until A's backlog has drained.
  const began = performance.now();
  let enqueued = 0;
  const enqueuing = autocannon({
    url: `${stack.description.baseUrl}/api/v1/workflows/${workflowA}/runs`,
    method: 'POST',
    headers: { authorization: `Bearer ${a.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ input }),
    connections: clients,
    pipelining: 1,
    amount: backlog,
    workers: 1,
    timeout: 60,
  }).then((result) => {
    enqueued = performance.now();
    return { queued: result['2xx'], refused: result.non2xx + result.errors + result.timeouts };
  });
  const whileEnqueuing: Timed[] = [];
  const whileDraining: Timed[] = [];
  let drained = 0;
  let mostUnfinished = 0;
  let lastCheck = 0;
  for (;;) {
    const timed = await runB();
    (enqueued === 0 ? whileEnqueuing : whileDraining).push(timed);
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
  const { queued, refused } = await enqueuing;

  const idleP50 = percentile(
    idle.map(({ ms }) => ms),
    50,
  );
  const row = (phase: string, timed: Timed[]) => {
    const values = timed.map(({ ms }) => ms);
    const median = (name: keyof Phases) =>
      round(
        percentile(
          timed.map(({ phases }) => phases[name]),
          50,
        ),
      );
    return `| ${phase} | ${values.length} | ${round(percentile(values, 50))} | ${round(percentile(values, 99))} | ${round(
      percentile(values, 50) / idleP50,
    )}× | ${median('accepted')} / ${median('started')} / ${median('toCall')} / ${median('call')} / ${median('answered')} |`;
  };
  console.log(context.line);
  console.log(
    `A: ${queued} runs queued in ${round((enqueued - began) / 1000)} s by ${clients} clients (${refused} refused), all ended ${round((drained - began) / 1000)} s after the first; at most ${mostUnfinished} unfinished at once. Workflow: ${appMs === 0 ? 'trigger and two conditions' : `a call to an app answering in ${appMs} ms`}. RUNNER_ORGANIZATION_SHARE ${share || 'default'} (both organizations are on the enterprise plan: their share of the queue is 4 times it), RUNNER_INLINE_RESERVE ${reserve || 'default'}, ORGANIZATION_REQUESTS_IN_FLIGHT ${process.env.ORGANIZATION_REQUESTS_IN_FLIGHT ?? 'default'}.`,
  );
  console.log('');
  console.log(
    "| B's runs, one at a time | runs | p50 (ms) | p99 (ms) | p50 vs idle | medians (ms): accepted / first step / to the call / call / answered |",
  );
  console.log('| --- | --- | --- | --- | --- | --- |');
  console.log(row('idle service', idle));
  console.log(row('while A queues its backlog', whileEnqueuing));
  console.log(row("while A's backlog drains", whileDraining));
} finally {
  await db.end();
  await stack.stop();
  app.close();
}
