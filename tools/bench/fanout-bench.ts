/**
 * Fan-out: one webhook event reaching `--workflows` (1,000) published workflows, each listening to the
 * same connection with an App event trigger. It reports the 202 of that delivery, the time from the 202
 * to the last run accepted and to the last run complete, and checks that every workflow got exactly
 * one run. While the fan-out runs, it keeps sending deliveries to a second connection (no workflow
 * listens to it) every 20 ms, and reports their 202s: what the ingress answers while it fans out.
 *
 *   npm run build && node dist/tools/bench/fanout-bench.js [--workflows 1000]
 *
 * One process per service, as `deploy/` runs them; the workflows are made and published through the
 * API, ten at a time.
 */
import {
  chainOf,
  createConnection,
  createOrganization,
  databaseUrl,
  deliver,
  nodes,
  signedDelivery,
  TestStack,
  waitFor,
} from '#testing';
import pg from 'pg';

import { argument, benchContext } from './src/context.js';

const WORKFLOWS = Number(argument('workflows', '1000'));

const percentiles = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
  return `${at(0.5).toFixed(1)} / ${at(0.99).toFixed(1)} / ${(sorted.at(-1) ?? Number.NaN).toFixed(1)}`;
};

async function timedDelivery(baseUrl: string, connectionId: string, secret: string, payload: unknown) {
  const delivery = signedDelivery(secret, payload);
  const began = performance.now();
  const answer = await deliver(baseUrl, connectionId, delivery);
  const ms = performance.now() - began;
  if (answer.status !== 202) throw new Error(`the delivery answered ${answer.status}`);
  return ms;
}

async function main(): Promise<void> {
  const context = benchContext();
  const stack = await TestStack.start(
    { RATE_LIMIT_PER_HOUR: '1000000000', LOG_LEVEL: 'warn' },
    { services: ['catalog', 'workflow', 'runner', 'events', 'agent'] },
  );
  const db = new pg.Client({ connectionString: databaseUrl(stack.description.databaseName) });
  await db.connect();
  try {
    const org = await createOrganization(stack.description, { plan: 'enterprise' });
    const project = await org.api.post('/api/v1/projects', { name: 'Fan-out bench' });
    const hook = await createConnection(stack.description, org.organizationId, 'webhook');
    const probe = await createConnection(stack.description, org.organizationId, 'webhook');
    const { secret: hookSecret } = hook;
    const { secret: probeSecret } = probe;
    if (!hookSecret || !probeSecret) throw new Error('a webhook connection comes with its signing secret');

    const began = Date.now();
    const make = async (i: number) => {
      const created = await org.api.post(`/api/v1/projects/${project.body.id}/workflows`, {
        name: `Listener ${i}`,
        diagram: chainOf(nodes.webhook('hook', hook.connectionId), nodes.alwaysTrue('c')),
      });
      const published = await org.api.post(`/api/v1/workflows/${created.body.id}/publish`, {});
      if (published.status !== 201) throw new Error(`publish answered ${published.status}`);
    };
    for (let i = 0; i < WORKFLOWS; i += 10) {
      await Promise.all(Array.from({ length: Math.min(10, WORKFLOWS - i) }, (_, j) => make(i + j)));
    }
    console.error(`${WORKFLOWS} workflows published in ${((Date.now() - began) / 1000).toFixed(0)} s`);
    // A few deliveries to the probe first, so its first timings are not a cold start.
    for (let i = 0; i < 20; i++)
      await timedDelivery(stack.baseUrl, probe.connectionId, probeSecret, { warm: i });

    const { rows: clock } = await db.query<{ now: Date }>('SELECT now()');
    const sentAt = clock[0]?.now ?? new Date();
    const accepted = await timedDelivery(stack.baseUrl, hook.connectionId, hookSecret, { order: 1 });
    const acceptedAt = new Date(sentAt.getTime() + accepted);

    let fanningOut = true;
    const probes: number[] = [];
    const probing = (async () => {
      for (let i = 0; fanningOut; i++) {
        const next = performance.now() + 20;
        probes.push(await timedDelivery(stack.baseUrl, probe.connectionId, probeSecret, { probe: i }));
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
      }
    })();
    const counts = `SELECT count(*)::int AS runs, count(DISTINCT workflow_id)::int AS workflows,
                           count(*) FILTER (WHERE status = 'complete')::int AS complete,
                           extract(epoch FROM max(created_at) - $1::timestamptz) * 1000 AS last_accepted_ms,
                           extract(epoch FROM max(finished_at) - $1::timestamptz) * 1000 AS last_complete_ms
                      FROM runner.runs WHERE trigger = 'event' AND created_at >= $2`;
    await waitFor(
      async () => {
        const { rows } = await db.query<{ complete: number }>(counts, [acceptedAt, sentAt]);
        return (rows[0]?.complete ?? 0) >= WORKFLOWS ? true : undefined;
      },
      { what: 'a run of every workflow to complete', timeoutMs: 10 * 60_000, intervalMs: 200 },
    );
    fanningOut = false;
    await probing;
    const { rows } = await db.query<{
      runs: number;
      workflows: number;
      complete: number;
      last_accepted_ms: number;
      last_complete_ms: number;
    }>(counts, [acceptedAt, sentAt]);
    const result = rows[0];
    if (result?.runs !== WORKFLOWS || result.workflows !== WORKFLOWS) {
      throw new Error(`expected ${WORKFLOWS} runs, one per workflow; found ${JSON.stringify(result)}`);
    }
    const { rows: outcomes } = await db.query<{ outcome: string; n: number }>(
      `SELECT outcome, count(*)::int AS n FROM "events".event_outcomes
        WHERE event_id = (SELECT id FROM "events".app_events WHERE connection_id = $1) GROUP BY outcome`,
      [hook.connectionId],
    );
    console.log(
      [
        `${context.line}; one process per service`,
        '',
        `| one event, ${WORKFLOWS} listening workflows | |`,
        '|---|---|',
        `| the delivery's 202 | ${accepted.toFixed(1)} ms |`,
        `| 202 → last run accepted | ${(Number(result.last_accepted_ms) / 1000).toFixed(2)} s |`,
        `| 202 → last run complete | ${(Number(result.last_complete_ms) / 1000).toFixed(2)} s |`,
        `| runs / workflows with a run | ${result.runs} / ${result.workflows} |`,
        `| outcomes recorded | ${outcomes.map((row) => `${row.outcome} ${row.n}`).join(', ')} |`,
        `| other deliveries meanwhile, 202 p50 / p99 / max ms | ${percentiles(probes)} (${probes.length}) |`,
      ].join('\n'),
    );
  } finally {
    await db.end();
    await stack.stop();
  }
}

await main();
