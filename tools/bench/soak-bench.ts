/**
 * Soak benchmark: does a long load leave memory and open handles where they were? It starts a stack
 * of its own (the all-in-one process by default, `--processes separate` for one per service), then
 * `--clients` clients loop for `--minutes` over what an API client does most: start a 3-step run and
 * wait for it (`Prefer: wait`), read it, read a project, and every 20th turn read the dashboard and
 * follow a run's event stream to its end. Every `--every` seconds it samples each app process's RSS,
 * its heap after a full collection and its active handles (through the inspector, `src/inspector.ts`),
 * open file descriptors and threads, the stack's Postgres connections, and the NATS server's
 * connections and subscriptions; then it stops the load, lets the stack idle `--settle` seconds (60),
 * and samples once more.
 *
 *   npm run build && node dist/tools/bench/soak-bench.js [--minutes 10] [--clients 10] [--every 60]
 */
import { readdirSync } from 'node:fs';
import { Agent, request } from 'node:http';

import { createOrganization, InspectedProcess, TestStack } from '#testing';
import pg from 'pg';

import { BENCH_RUN_BODY, publishBenchWorkflow } from './src/bench-workflow.js';
import { argument, benchContext, rssMiB, statusField } from './src/context.js';

const minutes = Number(argument('minutes', '10'));
const clients = Number(argument('clients', '10'));
const everySeconds = Number(argument('every', '60'));
const allInOne = argument('processes', 'all-in-one') !== 'separate';
const settleSeconds = Number(argument('settle', '60'));

interface Sample {
  atSeconds: number;
  phase: 'load' | 'idle';
  turns: number;
  rssMiB: number;
  heapMiB: number;
  handles: number;
  fds: number;
  threads: number;
  postgresConnections: number;
  natsConnections: number;
  natsSubscriptions: number;
}

const context = benchContext();
const stack = await TestStack.start(
  // Each app process opens its inspector on a free port, for the heap and handle readings.
  { RATE_LIMIT_PER_HOUR: '100000000', LOG_LEVEL: 'warn', NODE_OPTIONS: '--inspect=127.0.0.1:0' },
  { allInOne },
);
const inspected = await Promise.all(
  [...stack.processes.values()].map((service) => InspectedProcess.fromOutput(service.output())),
);
const db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
await db.connect();
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

try {
  const org = await createOrganization(stack.description, { plan: 'enterprise' });
  const project = await org.api.post('/api/v1/projects', { name: 'Soak' });
  const workflowId = await publishBenchWorkflow(org.api, project.body.id as string, 'Soak');

  const call = (method: string, path: string, body?: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const outgoing = request(
        new URL(path, stack.baseUrl),
        {
          method,
          agent,
          headers: {
            authorization: `Bearer ${org.apiKey}`,
            ...(body === undefined
              ? {}
              : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }),
            ...headers,
          },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });

  const input = BENCH_RUN_BODY;
  let turns = 0;
  let failures = 0;
  let stopping = false;
  const check = (ok: boolean) => {
    if (!ok) failures += 1;
  };
  const client = async () => {
    for (let turn = 0; !stopping; turn++) {
      const started = await call('POST', `/api/v1/workflows/${workflowId}/runs`, input, {
        prefer: 'wait=60',
      });
      const run = JSON.parse(started.text) as { id?: string; status?: string };
      check(started.status === 201 && run.status === 'complete');
      check((await call('GET', `/api/v1/runs/${run.id}`)).status === 200);
      check((await call('GET', `/api/v1/projects/${project.body.id}`)).status === 200);
      if (turn % 20 === 0) {
        check((await call('GET', '/api/v1/dashboard')).status === 200);
        // A finished run's stream sends its events and ends: open and close one, as a console would.
        const stream = await call('GET', `/api/v1/runs/${run.id}/stream`);
        check(stream.status === 200 && stream.text.includes('event: end'));
      }
      turns += 1;
    }
  };

  const natsMonitor = async (path: string) =>
    (await (await fetch(`${stack.description.natsMonitorUrl}${path}`)).json()) as Record<string, number>;
  const processes = [...stack.processes.entries()].map(
    ([name, service]) => [name, service.child.pid ?? 0] as const,
  );
  const began = performance.now();
  const samples: Sample[] = [];
  const sample = async (phase: Sample['phase']) => {
    let rss = 0;
    let fds = 0;
    let threads = 0;
    for (const [, pid] of processes) {
      rss += rssMiB(pid);
      threads += statusField(pid, 'Threads');
      fds += readdirSync(`/proc/${pid}/fd`).length;
    }
    let heap = 0;
    let handles = 0;
    for (const process of inspected) {
      const reading = await process.afterCollection();
      heap += reading.heapMiB;
      handles += Object.values(reading.resources).reduce((sum, count) => sum + count, 0);
    }
    const connections = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    const [connz, subsz] = await Promise.all([natsMonitor('/connz'), natsMonitor('/subsz')]);
    samples.push({
      atSeconds: Math.round((performance.now() - began) / 1000),
      phase,
      turns,
      rssMiB: Math.round(rss),
      heapMiB: Math.round(heap),
      handles,
      fds,
      threads,
      postgresConnections: connections.rows[0]?.n ?? 0,
      // This benchmark's own Postgres client is not among them; the admin CLI has left.
      natsConnections: connz.num_connections ?? Number.NaN,
      natsSubscriptions: subsz.num_subscriptions ?? Number.NaN,
    });
    console.error(JSON.stringify(samples.at(-1)));
  };

  await sample('idle');
  const workers = Array.from({ length: clients }, () => client());
  const deadline = began + minutes * 60_000;
  while (performance.now() < deadline) {
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(everySeconds * 1000, deadline - performance.now())),
    );
    await sample('load');
  }
  stopping = true;
  await Promise.all(workers);
  agent.destroy();
  await new Promise((resolve) => setTimeout(resolve, settleSeconds * 1000));
  await sample('idle');

  const lines = [
    context.line,
    '',
    `${allInOne ? 'all-in-one process' : 'one process per service'}, ${clients} clients, ${turns} turns, ${failures} failed calls`,
    '',
    '| at s | phase | turns/s since last | RSS MiB | heap MiB after full GC | active handles | open fds | threads | Postgres connections | NATS connections | NATS subscriptions |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...samples.map((row, index) => {
      const previous = samples[index - 1];
      const rate = previous
        ? (row.turns - previous.turns) / Math.max(1, row.atSeconds - previous.atSeconds)
        : 0;
      return `| ${row.atSeconds} | ${row.phase} | ${rate.toFixed(1)} | ${row.rssMiB} | ${row.heapMiB} | ${row.handles} | ${row.fds} | ${row.threads} | ${row.postgresConnections} | ${row.natsConnections} | ${row.natsSubscriptions} |`;
    }),
  ];
  console.log(lines.join('\n'));
} finally {
  for (const process of inspected) process.close();
  await db.end();
  await stack.stop();
}
