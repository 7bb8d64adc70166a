/**
 * Databases memory benchmark: for `--seconds`, one organization keeps sending the two queries of
 * issue 23 that make DuckDB allocate past its memory limit (a 1.5 GB string, a list of 300 million
 * numbers), each from `--concurrency` clients at once, while another organization runs a simple query
 * in a loop. It reports how the heavy batches were answered, the neighbour's latency and failures,
 * and the database service's resident memory sampled every 50 ms (the service and its engine worker,
 * summed).
 *
 *   npm run build && node dist/tools/bench/databases-memory-bench.js [--concurrency 10] [--seconds 20] [--build <checkout>]
 *
 * It starts its own catalog and gateway (fresh Postgres database, own NATS server and prefix) from
 * this checkout, and the database service from `--build` (default this checkout): point it at another
 * checkout's build to measure before and after back to back. Mind the machine: without a bound, each
 * string query alone takes about 3 GB.
 */
import {
  createOrganization,
  freePort,
  isRunning,
  type OrganizationFixture,
  processTreeOf,
  rssBytesOf,
  runMigrations,
  startService,
  TestStack,
  WORKSPACE_ROOT,
} from '#testing';

import { argument, benchContext } from './src/context.js';

const concurrency = Number(argument('concurrency', '10'));
const seconds = Number(argument('seconds', '20'));
const root = argument('build', WORKSPACE_ROOT);
const MiB = 1024 * 1024;
const HEAVY = [
  { name: 'string', sql: 'SELECT length(repeat(?, 1500000000))', params: ['x'] },
  { name: 'list', sql: 'SELECT count(*) FROM (SELECT list(range) FROM range(300000000))', params: [] },
];

interface Answer {
  status: number;
  code: string;
  ms: number;
}

async function batch(org: OrganizationFixture, id: string, sql: string, params: unknown[]): Promise<Answer> {
  const started = performance.now();
  try {
    const response = await org.api.post(`/api/v1/databases/${id}/query`, { statements: [{ sql, params }] });
    return {
      status: response.status,
      code: response.status === 200 ? 'ok' : String(response.body?.error?.code),
      ms: performance.now() - started,
    };
  } catch (error) {
    return { status: 0, code: `no answer (${(error as Error).message})`, ms: performance.now() - started };
  }
}

function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0
    ? Number.NaN
    : (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? 0);
}

/** Peak resident memory of the service, of its children (the engine worker), and of both at once. */
function sampler(servicePid: number) {
  const peaks = { service: 0, children: 0, total: 0, samples: 0, workers: new Set<number>() };
  const timer = setInterval(() => {
    const [service, ...children] = processTreeOf(servicePid);
    for (const pid of children) peaks.workers.add(pid);
    const own = rssBytesOf(service ?? servicePid);
    const theirs = children.reduce((sum, pid) => sum + rssBytesOf(pid), 0);
    peaks.service = Math.max(peaks.service, own);
    peaks.children = Math.max(peaks.children, theirs);
    peaks.total = Math.max(peaks.total, own + theirs);
    peaks.samples += 1;
  }, 50);
  return { peaks, stop: () => clearInterval(timer) };
}

const context = benchContext();
const stack = await TestStack.start({ RATE_LIMIT_PER_HOUR: '100000000' }, { services: ['catalog'] });
try {
  // This checkout's migrations: the schema of the database service it starts, or a newer one.
  await runMigrations(['database'], stack.env);
  const healthPort = await freePort();
  const database = await startService('database', {
    env: { ...stack.env, HEALTH_PORT: String(healthPort) },
    readyUrl: `http://127.0.0.1:${healthPort}/health/ready`,
    root,
  });
  stack.processes.set('database', database);
  const servicePid = database.child.pid ?? -1;

  const [heavy, neighbour] = await Promise.all([
    createOrganization(stack.description),
    createOrganization(stack.description),
  ]);
  const heavyDb = (await heavy.api.post('/api/v1/databases', { name: 'heavy' })).body.id as string;
  const neighbourDb = (await neighbour.api.post('/api/v1/databases', { name: 'neighbour' })).body
    .id as string;
  await batch(neighbour, neighbourDb, 'CREATE TABLE t AS SELECT range AS n FROM range(100000)', []);
  const simple = 'SELECT count(*), sum(n) FROM t';
  for (let warm = 0; warm < 20; warm += 1) await batch(neighbour, neighbourDb, simple, []);
  const idle = processTreeOf(servicePid).reduce((sum, pid) => sum + rssBytesOf(pid), 0);

  const memory = sampler(servicePid);
  let loading = true;
  const neighbourAnswers: Answer[] = [];
  const neighbourLoop = (async () => {
    while (loading) neighbourAnswers.push(await batch(neighbour, neighbourDb, simple, []));
  })();
  const started = performance.now();
  const deadline = Date.now() + seconds * 1000;
  const heavyAnswers: Array<Answer & { name: string }> = [];
  await Promise.all(
    Array.from({ length: concurrency }, () => HEAVY).flatMap((queries) =>
      queries.map(async (query) => {
        while (Date.now() < deadline) {
          heavyAnswers.push({ name: query.name, ...(await batch(heavy, heavyDb, query.sql, query.params)) });
        }
      }),
    ),
  );
  const heavySeconds = (performance.now() - started) / 1000;
  loading = false;
  await neighbourLoop;
  memory.stop();
  const alive = isRunning(servicePid);
  const after = await batch(neighbour, neighbourDb, simple, []);

  const outcomes = new Map<string, number>();
  for (const answer of heavyAnswers) {
    const key = `${answer.name}: ${answer.status} ${answer.code}`;
    outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
  }
  const served = neighbourAnswers.filter((answer) => answer.status === 200).map((answer) => answer.ms);
  const mib = (bytes: number) => `${Math.round(bytes / MiB)} MiB`;
  const ms = (value: number) => `${Math.round(value)} ms`;
  console.log(
    [
      context.line,
      `database service from ${root}; ${concurrency} clients for each heavy query (${concurrency * HEAVY.length} at once) for ${seconds} s`,
      '',
      '| measure | value |',
      '| --- | --- |',
      `| heavy batches answered | ${[...outcomes].map(([key, count]) => `${count}× ${key}`).join('; ')} |`,
      `| heavy batches sent; last answer after | ${heavyAnswers.length}; ${heavySeconds.toFixed(1)} s |`,
      `| neighbour queries answered / failed | ${served.length} / ${neighbourAnswers.length - served.length} |`,
      `| neighbour latency p50 / p95 / max | ${ms(percentile(served, 0.5))} / ${ms(percentile(served, 0.95))} / ${ms(Math.max(0, ...served))} |`,
      `| database service RSS idle | ${mib(idle)} |`,
      `| peak RSS, service / its children (engine worker) / together (${memory.peaks.samples} samples) | ${mib(memory.peaks.service)} / ${mib(memory.peaks.children)} / ${mib(memory.peaks.total)} |`,
      `| engine worker processes seen (more than one: it was started again) | ${memory.peaks.workers.size} |`,
      `| service alive after, neighbour's next query | ${alive ? 'yes' : 'no'}, ${after.status} ${after.code} |`,
    ].join('\n'),
  );
} finally {
  await stack.stop();
}
