/**
 * Webhook ingress benchmark: signed deliveries to `POST /hooks/{connectionId}` through the gateway,
 * at several numbers of connections. Each delivery has its own `webhook-id`, so every one is a new
 * event to verify, store and fan out. The workflow that listens is paused by default, so each event
 * gets its `no_listener` outcome without starting a run (`--runs` keeps it live: every delivery then
 * also starts a run). After each level it checks that every acknowledged delivery was stored and
 * got its outcome.
 *
 *   npm run build && node dist/tools/bench/hooks-bench.js [--seconds 10] [--connections 1,10,50] [--runs]
 */
import { randomUUID } from 'node:crypto';

import { chainOf, createConnection, createOrganization, nodes, TestStack, waitFor } from '#testing';
import { Webhook } from 'standardwebhooks';

import { argument } from './src/context.js';
import { load, type LoadResult } from './src/measure.js';

const seconds = Number(argument('seconds', '10'));
const levels = argument('connections', '1,10,50').split(',').map(Number);
const live = process.argv.includes('--runs');

const stack = await TestStack.start(
  { RATE_LIMIT_PER_HOUR: '100000000', LOG_LEVEL: 'warn' },
  { services: ['catalog', 'workflow', 'runner', 'events'] },
);
try {
  const org = await createOrganization(stack.description, { plan: 'enterprise' });
  const project = await org.api.post('/api/v1/projects', { name: 'Hooks bench' });
  const rows: Array<LoadResult & { stored: number; acknowledged: number; settleSeconds: number }> = [];
  for (const connections of levels) {
    // A connection and a workflow per level, so each level's events are counted on their own.
    const hook = await createConnection(stack.description, org.organizationId, 'webhook');
    if (!hook.secret) throw new Error('a webhook connection comes with its signing secret');
    const webhook = new Webhook(hook.secret);
    const created = await org.api.post(`/api/v1/projects/${project.body.id}/workflows`, {
      name: `Hooks ${connections}`,
      diagram: chainOf(nodes.webhook('hook', hook.connectionId), nodes.alwaysTrue('c')),
    });
    const workflowId = created.body.id as string;
    await org.api.post(`/api/v1/workflows/${workflowId}/publish`, {});
    if (!live) await org.api.post(`/api/v1/workflows/${workflowId}/pause`);

    const url = `${stack.baseUrl}/hooks/${hook.connectionId}`;
    let sequence = 0;
    const result = await load({
      url,
      connections,
      duration: seconds,
      requests: [
        {
          method: 'POST',
          setupRequest: (request) => {
            const id = `msg_${randomUUID()}`;
            const now = new Date();
            const body = JSON.stringify({
              sequence: (sequence += 1),
              level: connections,
              at: now.toISOString(),
            });
            return {
              ...request,
              body,
              headers: {
                'content-type': 'application/json',
                'webhook-id': id,
                'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
                'webhook-signature': webhook.sign(id, now, body),
              },
            };
          },
        },
      ],
    });
    const acknowledged = result.succeeded;
    const settleStarted = Date.now();
    const stored = await waitFor(
      async () => {
        const events = await org.api.listAll(`/api/v1/workflows/${workflowId}/events`);
        const settled = events.filter((event) => event.outcomes.length > 0).length;
        return settled >= acknowledged ? events.length : undefined;
      },
      {
        timeoutMs: 10 * 60_000,
        intervalMs: 1_000,
        what: `every acknowledged delivery of level ${connections}`,
      },
    );
    rows.push({ ...result, stored, acknowledged, settleSeconds: (Date.now() - settleStarted) / 1000 });
    console.log(JSON.stringify(rows.at(-1)));
  }
  console.log(
    [
      `| connections | accepted deliveries/s | p50 ms | p99 ms | non-2xx | stored with an outcome / acknowledged | outcomes settled after | load generator CPU | machine CPU |`,
      `| --- | --- | --- | --- | --- | --- | --- | --- | --- |`,
      ...rows.map(
        (row) =>
          `| ${row.connections} | ${Math.round(row.requestsPerSecond)} | ${row.p50} | ${row.p99} | ${row.non2xx + row.errors} | ${row.stored} / ${row.acknowledged} | ${row.settleSeconds.toFixed(1)} s | ${Math.round(row.generatorCpu * 100)}% | ${Math.round(row.machineCpu * 100)}% |`,
      ),
    ].join('\n'),
  );
} finally {
  await stack.stop();
}
