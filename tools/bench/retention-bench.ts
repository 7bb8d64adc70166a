/**
 * Retention at a million runs (docs/retention.md): the runner's purge against a scratch database
 * migrated like the runner's, filled with `--runs` runs of one organization (three steps of payload
 * each, over 60 days, 96% of them final) and a tenth as many of another. It prints the tables' sizes
 * before, the purge's pace (runs and step rows trimmed per second, one runner, `--batch` runs a
 * statement) while a writer keeps inserting runs beside it (its insert latency with and without the
 * purge running), the sizes after the purge, after a plain VACUUM, after inserting a quarter as many
 * runs again (the freed space reused, the files not grown) and after VACUUM FULL; and the plan of
 * one batch statement.
 *
 *   npm run build && node dist/tools/bench/retention-bench.js [--runs 1000000] [--batch 500] [--payload 1500]
 *
 * `--payload` is the bytes of each step's output (its input is a third of it), incompressible text.
 * Autovacuum is off for the two tables, so each size is what that step alone left.
 */
// It times the runner's own statements, so it imports the runner's repositories: a copy of their SQL
// here would measure a stale statement once they change.
/* eslint-disable @nx/enforce-module-boundaries */
import type { RpcClient } from '#nats';
import { migrate, newId } from '#persistence';
import { scratchDatabase } from '#testing';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import pino from 'pino';

import { RetentionPurge } from '../../apps/runner/src/retention/retention-purge.service.js';
import { RetentionRepository } from '../../apps/runner/src/retention/retention.repository.js';
import type { RunnerConfig } from '../../apps/runner/src/runner.config.js';
import { runnerDataSource } from '../../apps/runner/src/runner.database.js';
import type { DB } from '../../apps/runner/src/runner.tables.js';
import { idFloorAt } from '../../apps/runner/src/runs/run-filter.js';
import { RunRepository } from '../../apps/runner/src/runs/run.repository.js';
import { UNGATED } from '../../apps/runner/src/start/run-flow.js';

import { argument } from './src/context.js';

const RUNS = Number(argument('runs', '1000000'));
const BATCH = Number(argument('batch', '500'));
const PAYLOAD = Number(argument('payload', '1500'));
const ORG = 'org-bench';
const DAYS = 60;
const DAY_MS = 86_400_000;

/** A diagram of three nodes with properties of a realistic size (about 1.5 KB of JSON). */
const DIAGRAM = JSON.stringify({
  nodes: [
    {
      id: 't',
      position: { x: 0, y: 0 },
      data: { type: 'trigger', properties: { kind: 'api', label: 'Order' } },
    },
    {
      id: 'check',
      position: { x: 0, y: 120 },
      data: {
        type: 'condition',
        properties: {
          match: 'all',
          conditions: Array.from({ length: 8 }, (_, i) => ({
            left: `{{trigger.order.lines.${i}.amount}}`,
            operator: 'greater_than',
            right: String(100 * i),
          })),
        },
      },
    },
    {
      id: 'save',
      position: { x: 0, y: 240 },
      data: {
        type: 'database',
        properties: {
          databaseId: 'db-1',
          sql: 'INSERT INTO orders (id, customer, amount, lines) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET amount = excluded.amount',
          params: [
            '{{trigger.order.id}}',
            '{{trigger.order.customer}}',
            '{{trigger.order.amount}}',
            '{{trigger.order.lines}}',
          ],
        },
      },
    },
  ],
  edges: [
    { id: 'e1', source: 't', target: 'check' },
    { id: 'e2', source: 'check', target: 'save', sourceHandle: 'true' },
  ],
});

/** 1,000 incompressible texts of `bytes` (hex of md5s), picked by row: TOAST compresses nothing away. */
const payloadPool = (bytes: number) => `
  CREATE TEMP TABLE payloads AS
  SELECT p, (SELECT string_agg(md5(p::text || ':' || i::text), '') FROM generate_series(1, ceil(${bytes} / 32.0)::int) i)
         AS text
  FROM generate_series(0, 999) p`;

/**
 * Runs one every `days / count` back from now, statuses by `g % 100`: complete 85, errored 8,
 * terminated 3, waiting 2, running 1, paused 1. Ids are UUIDv7 of their creation time.
 */
const insertRuns = (organization: string, count: number, seed: number, days = DAYS) => `
  INSERT INTO runner.runs (id, organization_id, workflow_id, workflow_name, project_id, version, trigger,
    trigger_node_id, status, created_by, principal, input, diagram, time_zone, created_at, finished_at)
  SELECT (lpad(to_hex((extract(epoch FROM ts) * 1000)::bigint), 12, '0') || '7' ||
          substr(md5(g::text || '${seed}'), 1, 3) || '8' || substr(md5(g::text || '${seed}'), 4, 15))::uuid,
    '${organization}', 'wf-' || (g % 20), 'Workflow', 'project-1', 1, 'api', 't',
    CASE WHEN g % 100 < 85 THEN 'complete' WHEN g % 100 < 93 THEN 'errored' WHEN g % 100 < 96 THEN 'terminated'
         WHEN g % 100 < 98 THEN 'waiting' WHEN g % 100 < 99 THEN 'running' ELSE 'paused' END,
    NULL, '{}'::jsonb, '{"order":1}', '${DIAGRAM}'::json, 'UTC', ts, ts
  FROM generate_series(1, ${count}) AS g,
       LATERAL (SELECT now() - g * (interval '${days} days' / ${count}) AS ts) t`;

const insertSteps = (organization: string) => `
  INSERT INTO runner.run_steps (run_id, node_id, position, status, via, input, output, ms, started_at)
  SELECT r.id, s.node_id, s.position, 'done', s.via,
         CASE WHEN s.position = 0 THEN NULL ELSE substr(p.text, 1, ${Math.ceil(PAYLOAD / 3)}) END,
         jsonb_build_object('result', substr(p.text, 1, ${PAYLOAD})), 3, r.created_at
  FROM runner.runs r
  CROSS JOIN (VALUES ('t', 0, '{}'::text[]), ('check', 1, '{e1}'), ('save', 2, '{e2}')) AS s(node_id, position, via)
  JOIN payloads p ON p.p = (('x' || substr(r.id::text, 25, 8))::bit(32)::int & 1023) % 1000
  WHERE r.organization_id = '${organization}'`;

interface Sizes {
  relation: string;
  table: number;
  toast: number;
  indexes: number;
}

async function sizes(pool: pg.Pool): Promise<Sizes[]> {
  const { rows } = await pool.query<{ relation: string; table: string; toast: string; indexes: string }>(`
    SELECT c.oid::regclass::text AS relation, pg_relation_size(c.oid) AS table,
           coalesce(pg_total_relation_size(c.reltoastrelid), 0) AS toast, pg_indexes_size(c.oid) AS indexes
    FROM pg_class c WHERE c.oid IN ('runner.runs'::regclass, 'runner.run_steps'::regclass) ORDER BY 1`);
  return rows.map((row) => ({
    relation: row.relation,
    table: Number(row.table),
    toast: Number(row.toast),
    indexes: Number(row.indexes),
  }));
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

function printSizes(title: string, all: Sizes[]): void {
  console.log(
    `\n${title}\n| relation | heap MiB | TOAST MiB | indexes MiB | total MiB |\n| --- | ---: | ---: | ---: | ---: |`,
  );
  for (const { relation, table, toast, indexes } of all) {
    console.log(
      `| ${relation} | ${mib(table)} | ${mib(toast)} | ${mib(indexes)} | ${mib(table + toast + indexes)} |`,
    );
  }
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;

/** Inserts runs one after another (the runner's own insert) until `stop` resolves; answers their latencies. */
async function writeUntil(runs: RunRepository, stop: Promise<unknown>): Promise<number[]> {
  let done = false;
  void stop.finally(() => (done = true));
  const latencies: number[] = [];
  while (!done) {
    const id = newId();
    const start = process.hrtime.bigint();
    await runs.insert({
      id,
      organizationId: ORG,
      workflowId: 'wf-live',
      workflowName: 'Live',
      projectId: 'project-1',
      version: 1,
      trigger: 'api',
      triggerNodeId: 't',
      createdBy: null,
      principal: { organizationId: ORG, userId: null, keyId: 'k', role: 'admin' },
      input: '{"order":2}',
      diagram: JSON.parse(DIAGRAM) as never,
      timeZone: 'UTC',
      idempotencyKey: null,
      idempotencyFingerprint: null,
      triggerOutput: { payload: '{"order":2}' },
      createdAt: new Date(),
      rerunOf: null,
      traceParent: null,
      errorOfRunId: null,
      flow: UNGATED,
    });
    latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return latencies.sort((a, b) => a - b);
}

const latencyLine = (name: string, sorted: number[]) =>
  `| ${name} | ${sorted.length} | ${percentile(sorted, 0.5).toFixed(2)} | ${percentile(sorted, 0.99).toFixed(2)} | ${(sorted.at(-1) ?? Number.NaN).toFixed(2)} |`;

async function main(): Promise<void> {
  const database = scratchDatabase('fm_retention_bench');
  await database.create();
  const pool = new pg.Pool({ connectionString: database.url, max: 6 });
  let captured: { sql: string; parameters: readonly unknown[] } | undefined;
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => {
      if (event.level === 'query' && event.query.sql.includes('retention_progress" where'))
        captured = { sql: event.query.sql, parameters: event.query.parameters };
    },
  });
  try {
    await migrate(runnerDataSource(database.url));
    for (const table of ['runner.runs', 'runner.run_steps']) {
      await pool.query(
        `ALTER TABLE ${table} SET (autovacuum_enabled = false, toast.autovacuum_enabled = false)`,
      );
    }
    let began = Date.now();
    const client = await pool.connect();
    try {
      await client.query(payloadPool(PAYLOAD));
      await client.query(insertRuns(ORG, RUNS, 1));
      await client.query(insertRuns('org-other', Math.round(RUNS / 10), 2));
      await client.query(insertSteps(ORG));
      await client.query(insertSteps('org-other'));
    } finally {
      client.release();
    }
    console.log(
      `${RUNS} + ${Math.round(RUNS / 10)} runs with 3 steps each (output ${PAYLOAD} B, input ${Math.ceil(PAYLOAD / 3)} B) in ${((Date.now() - began) / 1000).toFixed(1)} s`,
    );
    await pool.query('VACUUM ANALYZE runner.runs');
    await pool.query('VACUUM ANALYZE runner.run_steps');
    printSizes('Before the purge', await sizes(pool));

    const runs = new RunRepository(db);
    const repository = new RetentionRepository(db);
    const config = { RETENTION_INTERVAL_MS: 600_000, RETENTION_BATCH: BATCH } as RunnerConfig;
    const purge = new RetentionPurge(repository, {} as RpcClient, config, pino({ level: 'silent' }));

    const quiet = await writeUntil(runs, new Promise((resolve) => setTimeout(resolve, 3_000)));
    began = Date.now();
    const purging = purge.purgeOrganization(
      { organizationId: ORG, stepPayloadDays: 30, diagramDays: 30 },
      new Date(),
    );
    const [pass, busy] = await Promise.all([purging, writeUntil(runs, purging)]);
    const seconds = (Date.now() - began) / 1000;
    console.log(
      `\nPurge of runs older than 30 days (batch ${BATCH}, one runner): ${seconds.toFixed(1)} s; ` +
        `payloads: ${pass.step_payload.runs} runs, ${pass.step_payload.steps} step rows ` +
        `(${Math.round(pass.step_payload.steps / seconds)} step rows/s and ${Math.round((pass.step_payload.runs + pass.diagram.runs) / seconds)} run trims/s together with diagrams), ` +
        `diagrams: ${pass.diagram.runs} runs; set aside while live: ${pass.step_payload.deferred}`,
    );
    console.log(
      `\nThe runner's run insert beside it\n| while | inserts | p50 ms | p99 ms | max ms |\n| --- | ---: | ---: | ---: | ---: |`,
    );
    console.log(latencyLine('nothing else runs (3 s)', quiet));
    console.log(latencyLine('the purge runs', busy));

    printSizes('After the purge (no VACUUM yet)', await sizes(pool));
    began = Date.now();
    await pool.query('VACUUM runner.run_steps');
    await pool.query('VACUUM runner.runs');
    printSizes(`After a plain VACUUM (${((Date.now() - began) / 1000).toFixed(1)} s)`, await sizes(pool));

    // A quarter as many runs again, of the last 15 days: they fit in what the purge freed.
    const more = Math.round(RUNS / 4);
    began = Date.now();
    const refill = await pool.connect();
    try {
      await refill.query(payloadPool(PAYLOAD));
      await refill.query(insertRuns('org-new', more, 3, 15));
      await refill.query(insertSteps('org-new'));
    } finally {
      refill.release();
    }
    printSizes(
      `After inserting ${more} more runs with their steps (${((Date.now() - began) / 1000).toFixed(1)} s), no VACUUM between`,
      await sizes(pool),
    );
    began = Date.now();
    await pool.query('VACUUM FULL runner.run_steps');
    await pool.query('VACUUM FULL runner.runs');
    printSizes(
      `After VACUUM FULL (${((Date.now() - began) / 1000).toFixed(1)} s, each table locked throughout)`,
      await sizes(pool),
    );

    // One batch of a walk as it runs (the other organization's first), and its plan.
    await repository.ensureProgress('org-other', 'step_payload');
    await repository.trimNext('org-other', 'step_payload', idFloorAt(Date.now() - 30 * DAY_MS), BATCH);
    if (captured) {
      const { rows: plan } = await pool.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) ${captured.sql}`,
        [...captured.parameters],
      );
      console.log(`\nOne batch's plan:\n${plan.map((line) => line['QUERY PLAN']).join('\n')}`);
    }
  } finally {
    await db.destroy();
    await database.drop();
  }
}

await main();
