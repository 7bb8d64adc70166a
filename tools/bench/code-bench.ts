/**
 * Code steps (issue 27, item 3), two measurements on a stack of its own:
 *
 * 1. Overhead: start → complete latency of a run with one trivial code step (api trigger → condition
 *    → code `return nodes.check.result;`) against the same run without it (api trigger →
 *    condition), one run at a time, the two alternating, `--runs` of each after a warm-up.
 * 2. Endless loops: the latency of the run without code while nothing else runs ("quiet") and while
 *    10 runs of `while (true) {}` (time cap `--loop-ms`, default 1 s) are executing ("loops"), each
 *    phase as long as the 10 loops take, in the order quiet, loops, loops, quiet, so that a drift of
 *    the machine falls on both sides.
 *
 * Each run is started with `Prefer: wait=30` and counted from the request to its answer, the run
 * final, as an API user would see it; every measured run is checked `complete`.
 *
 *   npm run build && node dist/tools/bench/code-bench.js [--runs 300] [--loop-ms 1000]
 *     [--processes all-in-one|separate] [--workers N]
 */
import {
  chainOf,
  createOrganization,
  nodes,
  ONE_ADDRESS_FOR_ALL,
  type TestDiagram,
  TestStack,
} from '#testing';

import { argument, benchContext, must } from './src/context.js';

const runs = Number(argument('runs', '300'));
const loopMs = Number(argument('loop-ms', '1000'));
const allInOne = argument('processes', 'all-in-one') !== 'separate';
const workers = argument('workers', '');
const LOOPS = 10;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const round = (ms: number) => Math.round(ms * 10) / 10;

const context = benchContext();
const stack = await TestStack.start(
  {
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_HOUR: '100000000',
    ORGANIZATION_RATE_LIMIT_PER_HOUR: '100000000',
    ...ONE_ADDRESS_FOR_ALL,
    ...(workers === '' ? {} : { CODE_WORKERS: workers }),
  },
  { allInOne },
);
try {
  const { api } = await createOrganization(stack.description);
  const projectId = must(await api.POST('/api/v1/projects', { body: { name: 'Code bench' } }), 201).id;
  const publish = async (name: string, diagram: TestDiagram) => {
    const { id } = must(
      await api.POST('/api/v1/projects/{projectId}/workflows', {
        params: { path: { projectId } },
        body: { name, diagram },
      }),
      201,
    );
    must(await api.POST('/api/v1/workflows/{id}/publish', { params: { path: { id } } }), 201);
    return id;
  };
  const plain = await publish('without code', chainOf(nodes.trigger('t'), nodes.alwaysTrue('check')));
  const withCode = await publish(
    'with code',
    chainOf(nodes.trigger('t'), nodes.alwaysTrue('check'), nodes.code('shape', 'return nodes.check.result;')),
  );
  const spinning = await publish(
    'endless',
    chainOf(nodes.trigger('t'), nodes.code('spin', 'while (true) {}', { timeoutMs: loopMs })),
  );

  /** Milliseconds from the start request to its answer with the run final; the run must be complete. */
  const timedRun = async (workflowId: string): Promise<number> => {
    const began = performance.now();
    const run = must(
      await api.POST('/api/v1/workflows/{id}/runs', {
        params: { path: { id: workflowId }, header: { Prefer: 'wait=30' } },
        body: { input: '{}' },
      }),
      201,
    );
    const ms = performance.now() - began;
    if (run.status !== 'complete') throw new Error(`run ${run.id} is ${run.status}: ${run.error}`);
    return ms;
  };

  // Warm-up: the code worker starts with the first code step, and the first runs compile everything.
  for (let index = 0; index < 30; index += 1) {
    await timedRun(plain);
    await timedRun(withCode);
  }
  const without: number[] = [];
  const withStep: number[] = [];
  for (let index = 0; index < runs; index += 1) {
    without.push(await timedRun(plain));
    withStep.push(await timedRun(withCode));
  }

  /** The plain run's latencies while 10 endless loops execute, until all of them have ended. */
  const duringLoops = async (): Promise<{ latencies: number[]; seconds: number }> => {
    const began = performance.now();
    const ids = await Promise.all(
      Array.from(
        { length: LOOPS },
        async () =>
          must(
            await api.POST('/api/v1/workflows/{id}/runs', { params: { path: { id: spinning } }, body: {} }),
            201,
          ).id,
      ),
    );
    let pending = new Set(ids);
    const latencies: number[] = [];
    while (pending.size > 0) {
      latencies.push(await timedRun(plain));
      const statuses = await Promise.all(
        [...pending].map(async (id) => ({
          id,
          status: must(await api.GET('/api/v1/runs/{id}', { params: { path: { id } } }), 200).status,
        })),
      );
      for (const { id, status } of statuses) {
        if (status === 'complete') throw new Error(`endless run ${id} completed`);
        if (status === 'errored') pending.delete(id);
      }
      pending = new Set(pending);
    }
    return { latencies, seconds: (performance.now() - began) / 1000 };
  };
  /** The plain run's latencies for `seconds` with nothing else running. */
  const quiet = async (seconds: number): Promise<number[]> => {
    const latencies: number[] = [];
    const until = performance.now() + seconds * 1000;
    while (performance.now() < until) latencies.push(await timedRun(plain));
    return latencies;
  };
  const phases: Array<{ name: string; latencies: number[] }> = [];
  const first = await quiet((LOOPS * loopMs) / 1000);
  phases.push({ name: 'quiet 1', latencies: first });
  const loopsA = await duringLoops();
  phases.push({ name: 'loops 1', latencies: loopsA.latencies });
  const loopsB = await duringLoops();
  phases.push({ name: 'loops 2', latencies: loopsB.latencies });
  phases.push({ name: 'quiet 2', latencies: await quiet(loopsB.seconds) });

  console.log(context.line);
  console.log(
    `${allInOne ? 'all-in-one' : 'one process per service'}, CODE_WORKERS ${workers || 'default'}, ${runs} runs of each`,
  );
  console.log('');
  console.log('| Run (1 at a time, start → complete) | p50 (ms) | p99 (ms) |');
  console.log('| --- | --- | --- |');
  console.log(
    `| trigger → condition | ${round(percentile(without, 50))} | ${round(percentile(without, 99))} |`,
  );
  console.log(
    `| trigger → condition → code | ${round(percentile(withStep, 50))} | ${round(percentile(withStep, 99))} |`,
  );
  console.log(
    `| overhead of the code step | ${round(percentile(withStep, 50) - percentile(without, 50))} | ${round(percentile(withStep, 99) - percentile(without, 99))} |`,
  );
  console.log('');
  console.log(`| Phase (10 loops of ${loopMs} ms each) | runs | p50 (ms) | p99 (ms) | max (ms) |`);
  console.log('| --- | --- | --- | --- | --- |');
  for (const { name, latencies } of phases) {
    console.log(
      `| ${name} | ${latencies.length} | ${round(percentile(latencies, 50))} | ${round(percentile(latencies, 99))} | ${round(Math.max(...latencies))} |`,
    );
  }
} finally {
  await stack.stop();
}
