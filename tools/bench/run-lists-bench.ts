/**
 * Run lists at a million runs: how long a page of `GET /api/v1/runs` (and a workflow's filtered runs)
 * takes in the runner's database with 1,000,000 runs in one organization, for each filter and some
 * combinations, with the plan Postgres chose; and how long a bulk operation takes to record what it
 * matched. It sends the runner's own statements (`RunListRepository.search`,
 * `OperationRepository.createForRuns`), against a scratch database migrated like the runner's.
 *
 *   npm run build && node dist/tools/bench/run-lists-bench.js [--runs 1000000] [--repeat 20]
 *
 * The runs span 40 days (so some read `unknown`), over 100 workflows, with statuses and triggers in
 * fixed shares (below); another organization holds a tenth as many, so no index is one tenant's.
 */
// It times the runner's own statements, so it imports the runner's repositories: a copy of their SQL
// here would measure a stale statement once they change.
/* eslint-disable @nx/enforce-module-boundaries */
import { newId, migrate, type PageRequest } from '#persistence';
import { scratchDatabase } from '#testing';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';

import { OperationRepository } from '../../apps/runner/src/operations/operation.repository.js';
import { runnerDataSource } from '../../apps/runner/src/runner.database.js';
import type { DB } from '../../apps/runner/src/runner.tables.js';
import type { RunFilter } from '../../apps/runner/src/runs/run-filter.js';
import { RunListRepository } from '../../apps/runner/src/runs/run-list.repository.js';

import { argument } from './src/context.js';

const RUNS = Number(argument('runs', '1000000'));
const REPEAT = Number(argument('repeat', '20'));
const ORG = 'org-bench';
const DAY = 86_400_000;

/**
 * Statuses by `g % 1000`: complete 80%, errored 10%, terminated 5%, waiting 3%, queued 1%,
 * running 0.9%, paused 0.1%. Triggers by `g % 100`: api 70%, schedule 20%, event 9%, manual 1%.
 * One run every 3.456 s: a million span 40 days.
 */
const insertRuns = (organization: string, count: number, seed: number) => `
  INSERT INTO runner.runs (id, organization_id, workflow_id, workflow_name, project_id, version, trigger,
    trigger_node_id, status, created_by, principal, input, diagram, time_zone, created_at, finished_at)
  SELECT (lpad(to_hex((extract(epoch FROM ts) * 1000)::bigint), 12, '0') || '7' ||
          substr(md5(g::text || '${seed}'), 1, 3) || '8' || substr(md5(g::text || '${seed}'), 4, 15))::uuid,
    '${organization}', 'wf-' || (g % 100), 'Workflow ' || (g % 100), 'project-1', 1,
    CASE WHEN g % 100 < 70 THEN 'api' WHEN g % 100 < 90 THEN 'schedule' WHEN g % 100 < 99 THEN 'event' ELSE 'manual' END,
    't',
    CASE WHEN g % 1000 < 800 THEN 'complete' WHEN g % 1000 < 900 THEN 'errored' WHEN g % 1000 < 950 THEN 'terminated'
         WHEN g % 1000 < 980 THEN 'waiting' WHEN g % 1000 < 990 THEN 'queued' WHEN g % 1000 < 999 THEN 'running'
         ELSE 'paused' END,
    NULL, '{}'::jsonb, '{"a":1}', '{"nodes":[],"edges":[]}'::json, 'UTC', ts, ts
  FROM generate_series(1, ${count}) AS g, LATERAL (SELECT now() - g * interval '3456 milliseconds' AS ts) t`;

interface Case {
  name: string;
  filter: RunFilter;
  /** Read the second page (from the first one's cursor). */
  second?: boolean;
}

const ago = (ms: number) => new Date(Date.now() - ms);

const CASES: Case[] = [
  { name: 'no filter', filter: {} },
  { name: 'status=errored (10%)', filter: { statuses: ['errored'] } },
  { name: 'status=errored, 2nd page', filter: { statuses: ['errored'] }, second: true },
  { name: 'status=errored&status=terminated', filter: { statuses: ['errored', 'terminated'] } },
  { name: 'status=running (0.9%)', filter: { statuses: ['running'] } },
  { name: 'status=paused (0.1%)', filter: { statuses: ['paused'] } },
  { name: 'status=unknown (older than 30 days)', filter: { statuses: ['unknown'] } },
  { name: 'status=errored&status=unknown', filter: { statuses: ['errored', 'unknown'] } },
  { name: 'trigger=schedule (20%)', filter: { trigger: 'schedule' } },
  { name: 'trigger=manual (1%)', filter: { trigger: 'manual' } },
  { name: 'createdAfter=1 day ago', filter: { createdAfter: ago(DAY) } },
  {
    name: 'one hour, 10 days ago',
    filter: { createdAfter: ago(10 * DAY), createdBefore: ago(10 * DAY - 3_600_000) },
  },
  { name: 'workflowId (1%)', filter: { workflowId: 'wf-7' } },
  { name: 'workflowId + status=errored', filter: { workflowId: 'wf-7', statuses: ['errored'] } },
  { name: 'workflowId + trigger=manual', filter: { workflowId: 'wf-7', trigger: 'manual' } },
  { name: 'status=errored + trigger=manual', filter: { statuses: ['errored'], trigger: 'manual' } },
  { name: 'status=paused + trigger=manual (none)', filter: { statuses: ['paused'], trigger: 'manual' } },
  {
    name: 'status=errored + one hour 10 days ago',
    filter: { statuses: ['errored'], createdAfter: ago(10 * DAY), createdBefore: ago(10 * DAY - 3_600_000) },
  },
  {
    name: 'workflowId + status + trigger + 7 days',
    filter: {
      workflowId: 'wf-7',
      statuses: ['complete', 'errored'],
      trigger: 'api',
      createdAfter: ago(7 * DAY),
    },
  },
];

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;

async function main(): Promise<void> {
  const database = scratchDatabase('fm_run_lists_bench');
  await database.create();
  const pool = new pg.Pool({ connectionString: database.url, max: 4 });
  let captured: { sql: string; parameters: readonly unknown[] } | undefined;
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => {
      if (event.level === 'query') captured = { sql: event.query.sql, parameters: event.query.parameters };
    },
  });
  try {
    await migrate(runnerDataSource(database.url));
    let began = Date.now();
    await pool.query(insertRuns(ORG, RUNS, 1));
    await pool.query(insertRuns('org-other', Math.round(RUNS / 10), 2));
    console.log(
      `inserted ${RUNS} + ${Math.round(RUNS / 10)} runs in ${((Date.now() - began) / 1000).toFixed(1)} s`,
    );
    began = Date.now();
    await pool.query('VACUUM ANALYZE runner.runs');
    console.log(`VACUUM ANALYZE in ${((Date.now() - began) / 1000).toFixed(1)} s`);
    const { rows: size } = await pool.query<{ table: string; indexes: string }>(
      `SELECT pg_size_pretty(pg_table_size('runner.runs')) AS table, pg_size_pretty(pg_indexes_size('runner.runs')) AS indexes`,
    );
    console.log(`runner.runs: table ${size[0]?.table}, indexes ${size[0]?.indexes}`);

    const lists = new RunListRepository(db);
    console.log('\n| Filter (page of 50) | rows | p50 ms | max ms |\n| --- | ---: | ---: | ---: |');
    const plans: string[] = [];
    for (const { name, filter, second } of CASES) {
      let page: PageRequest = { limit: 50 };
      if (second) {
        const first = await lists.search(ORG, filter, page);
        page = { limit: 50, ...(first.nextCursor ? { cursor: first.nextCursor } : {}) };
      }
      const times: number[] = [];
      let rows = 0;
      for (let i = 0; i < REPEAT; i++) {
        const start = process.hrtime.bigint();
        rows = (await lists.search(ORG, filter, page)).data.length;
        times.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
      times.sort((a, b) => a - b);
      console.log(
        `| ${name} | ${rows} | ${percentile(times, 0.5).toFixed(2)} | ${(times.at(-1) ?? Number.NaN).toFixed(2)} |`,
      );
      if (!captured) throw new Error('no statement was logged');
      const { rows: plan } = await pool.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) ${captured.sql}`,
        [...captured.parameters],
      );
      plans.push(`-- ${name}\n${plan.map((line) => line['QUERY PLAN']).join('\n')}`);
    }

    console.log(
      '\n| Bulk operation accepted (records what it matched) | matched | ms |\n| --- | ---: | ---: |',
    );
    const operations = new OperationRepository(db);
    for (const [name, filter] of [
      ['status=running', { statuses: ['running'] }],
      ['status=errored + 10 days', { statuses: ['errored'], createdAfter: ago(10 * DAY) }],
      ['status=errored', { statuses: ['errored'] }],
    ] as Array<[string, RunFilter]>) {
      const start = Date.now();
      const operation = await operations.createForRuns(
        {
          id: newId(),
          organizationId: ORG,
          action: 'cancel',
          principal: { organizationId: ORG, userId: null, keyId: 'k', role: 'admin' },
          workflowId: null,
          params: {},
        },
        filter,
        200_000,
      );
      console.log(`| ${name} | ${operation.matched} | ${Date.now() - start} |`);
    }
    console.log(`\n${plans.join('\n\n')}`);
  } finally {
    await db.destroy();
    await database.drop();
  }
}

await main();
