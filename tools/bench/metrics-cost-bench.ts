/**
 * The CPU the metrics hooks add to one run of the runs benchmark, measured alone: a busy shared machine
 * moves the runs benchmark's throughput by more than the few per cent the metrics could cost, while a
 * hook's own time does not depend on the load. Each hook is called as the run's path calls it, in a
 * tight loop, and the sum of what one run calls is set against the CPU the all-in-one process spends
 * on a run (`cpuByProcess` and `runsPerSecond` of tools/bench/runs-bench.ts).
 *
 *   npm run build && node dist/tools/bench/metrics-cost-bench.js [--iterations 1000000]
 */
import { performance } from 'node:perf_hooks';

import { RunnerSubjects } from '#contracts';
import { observeHandled, observeRequest } from '#nats';

/* eslint-disable @nx/enforce-module-boundaries */
import { observeHttpRequest } from '../../apps/gateway/src/http/http.metrics.js';
import { runFinished, runStarted, stepExecuted } from '../../apps/runner/src/metrics/run.metrics.js';
/* eslint-enable @nx/enforce-module-boundaries */

import { argument, benchContext } from './src/context.js';

const iterations = Number(argument('iterations', '1000000'));
const subject = RunnerSubjects.runsStart.bare;
const reply = Promise.resolve({ ok: true as const, data: null });
const created = new Date();

/** Nanoseconds per call of `work`, after a warm-up of a tenth as many calls. */
async function nanosPerCall(work: () => unknown): Promise<number> {
  for (let index = 0; index < iterations / 10; index += 1) await work();
  const began = performance.now();
  for (let index = 0; index < iterations; index += 1) await work();
  return ((performance.now() - began) * 1e6) / iterations;
}

const baseline = await nanosPerCall(() => undefined);
const hooks = {
  http: () => observeHttpRequest('/api/v1/workflows/:id/runs', false, 'POST', 201, 3.2),
  sent: () => observeRequest(subject, reply),
  handled: () => observeHandled(subject, performance.now()),
  step: () => stepExecuted('condition', 'done', performance.now()),
  run: () => {
    runStarted('api');
    runFinished('complete', created);
  },
};
const names: Record<keyof typeof hooks, string> = {
  http: 'HTTP request (gateway onResponse)',
  sent: 'NATS request sent (RpcClient)',
  handled: 'NATS request handled (RpcServer)',
  step: 'step executed (run engine)',
  run: 'run started and finished',
};
const nanos = { http: 0, sent: 0, handled: 0, step: 0, run: 0 };
for (const key of Object.keys(hooks) as Array<keyof typeof hooks>) {
  nanos[key] = (await nanosPerCall(hooks[key])) - baseline;
}

// The benchmark's run: one POST through the gateway, the NATS requests of its start (gateway →
// runner, runner → workflow for the target, runner → catalog for the count), each sent and handled
// in the one process, three steps at most (the trigger, two conditions), one start and one finish.
const perRun = nanos.http + 3 * nanos.sent + 3 * nanos.handled + 3 * nanos.step + nanos.run;

console.log(benchContext().line);
console.log('\n| hook | ns per call |\n|---|---|');
for (const key of Object.keys(nanos) as Array<keyof typeof nanos>)
  console.log(`| ${names[key]} | ${nanos[key].toFixed(0)} |`);
console.log(`| one run of the runs benchmark | ${perRun.toFixed(0)} |`);
