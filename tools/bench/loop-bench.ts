/**
 * Loops (issue 27, item 1): the time a run with one `loop` over `--items` items (default 1,000) takes
 * from its start to `complete`, with a trivial body (one condition, which runs in the runner and asks
 * no other service), at each `--concurrency` (default 1, 8 and 50), `--tries` times each (default 3).
 * Every iteration is a child run: written, queued, claimed, its two steps checkpointed, and its end
 * waking the loop's step, which starts the next.
 *
 *   npm run build && node dist/tools/bench/loop-bench.js [--items 1000] [--concurrency 1,8,50] [--tries 3]
 *
 * It starts a stack of its own (fresh database, own NATS server), one process per service.
 */
import { createOrganization, edge, nodes, TestStack, waitFor } from '#testing';

import { argument, benchContext, must } from './src/context.js';

const items = Number(argument('items', '1000'));
const levels = argument('concurrency', '1,8,50').split(',').map(Number);
const tries = Number(argument('tries', '3'));

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const round = (value: number, digits = 1) => Number(value.toFixed(digits));

const context = benchContext();
const stack = await TestStack.start({ LOG_LEVEL: 'warn', RATE_LIMIT_PER_HOUR: '1000000' });
try {
  const { api } = await createOrganization(stack.description);
  const projectId = must(await api.POST('/api/v1/projects', { body: { name: 'Loop bench' } }), 201).id;
  const input = JSON.stringify(Array.from({ length: items }, (_, index) => index));
  const rows: string[] = [];
  for (const concurrency of levels) {
    const diagram = {
      nodes: [
        nodes.trigger('t'),
        nodes.loop('each', '{{trigger}}', { concurrency }),
        nodes.condition('check', [{ left: '{{loop.item}}', operator: 'is_not_empty' }]),
      ],
      edges: [edge('e1', 't', 'each'), edge('e2', 'each', 'check', 'body')],
    };
    const workflow = must(
      await api.POST('/api/v1/projects/{projectId}/workflows', {
        params: { path: { projectId } },
        body: { name: `loop ${concurrency}`, diagram },
      }),
      201,
    );
    must(await api.POST('/api/v1/workflows/{id}/publish', { params: { path: { id: workflow.id } } }), 201);
    const seconds: number[] = [];
    for (let attempt = 0; attempt < tries; attempt += 1) {
      const began = performance.now();
      const run = must(
        await api.POST('/api/v1/workflows/{id}/runs', {
          params: { path: { id: workflow.id } },
          body: { input },
        }),
        201,
      );
      const done = await waitFor(
        async () => {
          const read = must(await api.GET('/api/v1/runs/{id}', { params: { path: { id: run.id } } }), 200);
          return ['complete', 'errored', 'terminated'].includes(read.status) ? read : undefined;
        },
        { timeoutMs: 30 * 60_000, intervalMs: 50, what: `the loop run at concurrency ${concurrency}` },
      );
      if (done.status !== 'complete') throw new Error(`the run ended ${done.status}: ${done.error}`);
      seconds.push((performance.now() - began) / 1000);
    }
    const typical = median(seconds);
    rows.push(
      `| ${concurrency} | ${round(typical)} | ${seconds.map((one) => round(one)).join(', ')} | ${round(items / typical, 0)} |`,
    );
  }
  console.log(context.line);
  console.log(`| concurrency | ${items} items, median (s) | each try (s) | iterations/s |`);
  console.log('| --- | --- | --- | --- |');
  for (const row of rows) console.log(row);
} finally {
  await stack.stop();
}
