/**
 * Growth: how the cost of the everyday requests grows with the history an installation keeps. One
 * organization is filled with 10,000, then 1,000,000, then 10,000,000 runs (three steps each, over
 * the last 90 days) and up to 1,000,000 app events, and at each size it times, through the HTTP API
 * of a running stack (the all-in-one process `npm start` runs): a run start, `GET /runs/{id}` (a
 * recent run and an old one), the run lists with each filter (the first page and a deep page), the
 * dashboard and a workflow's event history (first and deep page). Then it prints the plan and
 * buffers of each read statement, sent as the services' own repositories build it.
 *
 *   npm run build && node dist/tools/bench/growth-bench.js [--sizes 10000,1000000,10000000]
 *     [--events 1000000] [--samples 100]
 *
 * The history is written in SQL (`generate_series`, copying a real run of the workflow) since the API
 * would take hours; each size is a fresh fill. Another organization holds a tenth as many runs, so no
 * index is one tenant's. History runs are final (complete 85 %, errored 10 %, terminated 5 %) but for
 * 3 % waiting on a delay due in a month; live backlogs are the timers benchmark's subject.
 */
// It explains the services' own statements, so it imports their repositories: a copy of their SQL
// here would explain a stale statement once they change.
/* eslint-disable @nx/enforce-module-boundaries */
import { encodeCursor, type PageRequest } from '#persistence';
import { createOrganization, databaseUrl, TestStack, waitFor } from '#testing';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';

import { AppEventRepository } from '../../apps/events/src/events/app-event.repository.js';
import type { DB as EventsTables } from '../../apps/events/src/events.tables.js';
import type { DB as RunnerTables } from '../../apps/runner/src/runner.tables.js';
import { RunListRepository } from '../../apps/runner/src/runs/run-list.repository.js';
import { RunRepository } from '../../apps/runner/src/runs/run.repository.js';
/* eslint-enable @nx/enforce-module-boundaries */

import { BENCH_RUN_BODY, publishBenchWorkflow } from './src/bench-workflow.js';
import { argument, benchContext } from './src/context.js';

const SIZES = argument('sizes', '10000,1000000,10000000').split(',').map(Number);
const EVENTS = Number(argument('events', '1000000'));
const SAMPLES = Number(argument('samples', '100'));
const SPAN_DAYS = 90;
const OTHER_ORG = 'org-growth-other';
const DAY = 86_400_000;

/** A UUIDv7-shaped id for a time and a row number: the order of ids is the order of times. */
const idAt = (ts: string, g: string, seed: string) => `
  (lpad(to_hex((extract(epoch FROM ${ts}) * 1000)::bigint), 12, '0') || '7' ||
   substr(md5(${g}::text || '${seed}'), 1, 3) || '8' || substr(md5(${g}::text || '${seed}'), 4, 15))::uuid`;

/**
 * `count` runs of `organization` copied from the template run, spread evenly over the span; one in
 * a hundred is the real workflow's, the rest spread over 99 others. Statuses by `g % 100`.
 */
const insertRuns = (organization: string, count: number, seed: string) => `
  INSERT INTO runner.runs (id, organization_id, workflow_id, workflow_name, project_id, version, trigger,
    trigger_node_id, status, created_by, principal, input, diagram, time_zone, dispatch, lease_token,
    claims, created_at, started_at, finished_at, wake_at, error)
  SELECT ${idAt('ts', 'g', seed)}, '${organization}',
    CASE WHEN g % 101 = 7 THEN t.workflow_id ELSE 'wf-' || (g % 101) END, t.workflow_name, t.project_id,
    t.version,
    CASE WHEN g % 10 < 7 THEN 'api' WHEN g % 10 < 9 THEN 'schedule' WHEN g % 50 = 9 THEN 'manual' ELSE 'event' END,
    t.trigger_node_id,
    CASE WHEN g % 100 < 82 THEN 'complete' WHEN g % 100 < 92 THEN 'errored' WHEN g % 100 < 97 THEN 'terminated'
         ELSE 'waiting' END,
    t.created_by, t.principal, t.input, t.diagram, t.time_zone, 1, 1, 1, ts, ts,
    CASE WHEN g % 100 < 97 THEN ts + interval '20 milliseconds' END,
    CASE WHEN g % 100 >= 97 THEN now() + interval '30 days' END,
    CASE WHEN g % 100 BETWEEN 82 AND 91 THEN 'Step vip failed: boom' END
  FROM runner.runs t, generate_series(1, ${count}) AS g,
    LATERAL (SELECT now() - g * (interval '${SPAN_DAYS} days' / ${count}) AS ts) x
  WHERE t.id = $1`;

/** The template run's three steps for every other run; an errored run's last step failed. */
const INSERT_STEPS = `
  INSERT INTO runner.run_steps (run_id, node_id, position, status, via, input, output, error, ms, started_at)
  SELECT r.id, s.node_id, s.position,
    CASE WHEN r.status = 'errored' AND s.node_id = 'vip' THEN 'error'
         WHEN r.status = 'waiting' AND s.node_id = 'vip' THEN 'waiting' ELSE s.status END,
    s.via, s.input, s.output,
    CASE WHEN r.status = 'errored' AND s.node_id = 'vip' THEN 'boom' END, s.ms, r.created_at
  FROM runner.runs r, runner.run_steps s WHERE r.id <> $1 AND s.run_id = $1`;

interface Timing {
  p50: number;
  p99: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;

async function timed(samples: number, request: (i: number) => Promise<Response>): Promise<Timing> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    const answer = await request(i);
    await answer.arrayBuffer();
    const elapsed = performance.now() - start;
    if (!answer.ok) throw new Error(`${answer.url} answered ${answer.status}`);
    times.push(elapsed);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

async function main(): Promise<void> {
  const context = benchContext();
  const stack = await TestStack.start(
    { RATE_LIMIT_PER_HOUR: '1000000000', LOG_LEVEL: 'warn', DATABASE_POOL_SIZE: '10' },
    { allInOne: true, services: ['catalog', 'workflow', 'runner', 'events', 'agent'] },
  );
  const pool = new pg.Pool({ connectionString: databaseUrl(stack.description.databaseName), max: 4 });
  let captured: Array<{ sql: string; parameters: readonly unknown[] }> = [];
  const dialect = () =>
    new PostgresDialect({ pool: new pg.Pool({ connectionString: stack.env.DATABASE_URL, max: 2 }) });
  const capture = (event: { level: string; query: { sql: string; parameters: readonly unknown[] } }) => {
    if (event.level === 'query') captured.push({ sql: event.query.sql, parameters: event.query.parameters });
  };
  const runnerDb = new Kysely<RunnerTables>({ dialect: dialect(), log: capture });
  const eventsDb = new Kysely<EventsTables>({ dialect: dialect(), log: capture });
  try {
    const org = await createOrganization(stack.description, { plan: 'enterprise' });
    const project = await org.api.post('/api/v1/projects', { name: 'Growth bench' });
    const workflowId = await publishBenchWorkflow(org.api, project.body.id as string, 'Growth');
    const template = await org.api.post(`/api/v1/workflows/${workflowId}/runs`, JSON.parse(BENCH_RUN_BODY));
    const templateId = template.body.id as string;
    await waitFor(
      async () =>
        (await org.api.get(`/api/v1/runs/${templateId}`)).body.status === 'complete' ? true : undefined,
      { what: 'the template run' },
    );
    await pool.query('CREATE TABLE public.growth_template AS SELECT * FROM runner.runs WHERE id = $1', [
      templateId,
    ]);
    await pool.query(
      'CREATE TABLE public.growth_template_steps AS SELECT * FROM runner.run_steps WHERE run_id = $1',
      [templateId],
    );
    const headers = { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' };
    const get = (path: string) => fetch(`${stack.baseUrl}${path}`, { headers });

    const results: Array<{ size: number; figures: Map<string, Timing>; buffers: Map<string, number> }> = [];
    const plans = new Map<number, string[]>();
    for (const size of SIZES) {
      const began = Date.now();
      await pool.query('TRUNCATE runner.runs CASCADE');
      await pool.query('INSERT INTO runner.runs SELECT * FROM public.growth_template');
      await pool.query('INSERT INTO runner.run_steps SELECT * FROM public.growth_template_steps');
      await pool.query(insertRuns(org.organizationId, size, 'a'), [templateId]);
      await pool.query(insertRuns(OTHER_ORG, Math.max(1, Math.round(size / 10)), 'b'), [templateId]);
      await pool.query(INSERT_STEPS, [templateId]);
      await pool.query('DELETE FROM catalog.run_days WHERE organization_id = $1', [org.organizationId]);
      await pool.query(
        `INSERT INTO catalog.run_days (organization_id, day, runs)
         SELECT organization_id, (created_at AT TIME ZONE 'UTC')::date, count(*) FROM runner.runs
          WHERE organization_id = $1 AND created_at > now() - interval '40 days' GROUP BY 1, 2`,
        [org.organizationId],
      );
      const events = Math.min(size, EVENTS);
      await pool.query('TRUNCATE "events".app_events CASCADE');
      // A tenth of the events reach the workflow measured, the rest nine others: a workflow's history
      // is a walk of its own outcomes, not of every event.
      await pool.query(
        `WITH e AS (
           INSERT INTO "events".app_events (id, organization_id, connection_id, trigger, delivery_id, payload,
             fired_at, received_at, listeners_resolved, fanned_out_at)
           SELECT ${idAt('ts', 'g', 'e')}, $1, '00000000-0000-7000-8000-000000000001', 'webhook/received',
             'delivery-' || g, '{"order":' || g || '}', ts, ts, true, ts
           FROM generate_series(1, $2::int) AS g,
             LATERAL (SELECT now() - g * (interval '29 days' / $2::int) AS ts) x
           RETURNING id, received_at
         )
         INSERT INTO "events".event_outcomes (event_id, workflow_id, trigger_node_id, organization_id, outcome, run_id, at)
         SELECT id, CASE WHEN ('x' || substr(md5(id::text), 1, 4))::bit(16)::int % 10 = 0 THEN $3 ELSE 'wf-e' || (('x' || substr(md5(id::text), 1, 4))::bit(16)::int % 10) END,
           'hook', $1, 'started', NULL, received_at
         FROM e`,
        [org.organizationId, events, workflowId],
      );
      await pool.query(
        'VACUUM ANALYZE runner.runs, runner.run_steps, "events".app_events, "events".event_outcomes',
      );
      const { rows: sizes } = await pool.query<Record<string, string>>(
        `SELECT pg_size_pretty(pg_table_size('runner.runs')) AS runs,
                pg_size_pretty(pg_indexes_size('runner.runs')) AS runs_indexes,
                pg_size_pretty(pg_table_size('runner.run_steps')) AS steps,
                pg_size_pretty(pg_indexes_size('runner.run_steps')) AS steps_indexes,
                pg_size_pretty(pg_total_relation_size('"events".app_events') + pg_total_relation_size('"events".event_outcomes')) AS events`,
      );
      console.error(
        `filled ${size} runs (+${Math.round(size / 10)} in another organization), ${events} events in ${(
          (Date.now() - began) /
          1000
        ).toFixed(0)} s: ${JSON.stringify(sizes[0])}`,
      );

      // Ids to read: a run of the last hour, one from the middle of the span, and a cursor there.
      const { rows: picks } = await pool.query<{ recent: string; old: string }>(
        `SELECT (SELECT id FROM runner.runs WHERE organization_id = $1 AND created_at < now() - interval '1 hour'
                  ORDER BY id DESC LIMIT 1) AS recent,
                (SELECT id FROM runner.runs WHERE organization_id = $1 AND created_at < now() - interval '45 days'
                  ORDER BY id DESC LIMIT 1) AS old`,
        [org.organizationId],
      );
      const { rows: eventPick } = await pool.query<{ id: string }>(
        `SELECT event_id AS id FROM "events".event_outcomes WHERE workflow_id = $1
          AND at < now() - interval '15 days' ORDER BY event_id DESC LIMIT 1`,
        [workflowId],
      );
      const recent = picks[0]?.recent ?? '';
      const deep = encodeCursor(picks[0]?.old ?? '');
      const deepEvents = eventPick[0] ? encodeCursor(eventPick[0].id) : undefined;
      const day = (n: number) => new Date(Date.now() - n * DAY).toISOString();

      const figures = new Map<string, Timing>();
      figures.set(
        'run start (201)',
        await timed(SAMPLES, () =>
          fetch(`${stack.baseUrl}/api/v1/workflows/${workflowId}/runs`, {
            method: 'POST',
            headers,
            body: BENCH_RUN_BODY,
          }),
        ),
      );
      figures.set('GET /runs/{id}, recent', await timed(SAMPLES, () => get(`/api/v1/runs/${recent}`)));
      figures.set(
        'GET /runs/{id}, 45 days old',
        await timed(SAMPLES, () => get(`/api/v1/runs/${picks[0]?.old}`)),
      );
      const lists: Array<[string, string]> = [
        ['runs, no filter', ''],
        ['runs, status=errored', 'status=errored'],
        ['runs, status=waiting', 'status=waiting'],
        ['runs, status=unknown', 'status=unknown'],
        ['runs, status=errored&status=terminated', 'status=errored&status=terminated'],
        ['runs, trigger=manual', 'trigger=manual'],
        ['runs, createdAfter 1 day', `createdAfter=${day(1)}`],
        ['runs, workflowId', `workflowId=${workflowId}`],
        ['runs, workflowId + status=errored', `workflowId=${workflowId}&status=errored`],
      ];
      for (const [name, query] of lists) {
        figures.set(`${name}`, await timed(SAMPLES, () => get(`/api/v1/runs?limit=50&${query}`)));
        figures.set(
          `${name}, deep page`,
          await timed(SAMPLES, () => get(`/api/v1/runs?limit=50&cursor=${deep}&${query}`)),
        );
      }
      figures.set(
        'workflow runs',
        await timed(SAMPLES, () => get(`/api/v1/workflows/${workflowId}/runs?limit=50`)),
      );
      figures.set('dashboard', await timed(SAMPLES, () => get('/api/v1/dashboard')));
      figures.set(
        'event history',
        await timed(SAMPLES, () => get(`/api/v1/workflows/${workflowId}/events?limit=50`)),
      );
      if (deepEvents) {
        figures.set(
          'event history, deep page',
          await timed(SAMPLES, () =>
            get(`/api/v1/workflows/${workflowId}/events?limit=50&cursor=${deepEvents}`),
          ),
        );
      }

      // The plans, from the statements the repositories send for the same reads.
      const runs = new RunRepository(runnerDb);
      const runLists = new RunListRepository(runnerDb);
      const appEvents = new AppEventRepository(eventsDb);
      const page = (cursor?: string): PageRequest => ({ limit: 50, ...(cursor ? { cursor } : {}) });
      const reads: Array<[string, Kysely<never>, () => Promise<unknown>]> = [
        ['GET /runs/{id}', runnerDb as never, () => runs.find(org.organizationId, recent)],
        [
          'runs, no filter, deep page',
          runnerDb as never,
          () => runLists.search(org.organizationId, {}, page(deep)),
        ],
        [
          'runs, status=errored, deep page',
          runnerDb as never,
          () => runLists.search(org.organizationId, { statuses: ['errored'] }, page(deep)),
        ],
        [
          'runs, status=unknown',
          runnerDb as never,
          () => runLists.search(org.organizationId, { statuses: ['unknown'] }, page()),
        ],
        [
          'runs, trigger=manual, deep page',
          runnerDb as never,
          () => runLists.search(org.organizationId, { trigger: 'manual' }, page(deep)),
        ],
        [
          'runs, workflowId + status=errored',
          runnerDb as never,
          () => runLists.search(org.organizationId, { workflowId, statuses: ['errored'] }, page()),
        ],
        [
          'runs, createdAfter 1 day',
          runnerDb as never,
          () => runLists.search(org.organizationId, { createdAfter: new Date(Date.now() - DAY) }, page()),
        ],
        ['dashboard, recent runs', runnerDb as never, () => runLists.recent(org.organizationId, 10)],
        [
          'dashboard, failures',
          runnerDb as never,
          () => runLists.failures(org.organizationId, new Date(Date.now() - 7 * DAY), 20),
        ],
        [
          'event history, deep page',
          eventsDb as never,
          () => appEvents.listForWorkflow(org.organizationId, workflowId, page(deepEvents)),
        ],
      ];
      const buffers = new Map<string, number>();
      const levelPlans: string[] = [];
      for (const [name, , read] of reads) {
        captured = [];
        await read();
        let hits = 0;
        for (const statement of captured) {
          const { rows } = await pool.query<{ 'QUERY PLAN': string }>(
            `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) ${statement.sql}`,
            [...statement.parameters],
          );
          const text = rows.map((row) => row['QUERY PLAN']).join('\n');
          // The top node's buffers: what the statement read, from the cache or the disk.
          const top = /Buffers: shared(?: hit=(\d+))?(?: read=(\d+))?/.exec(text);
          hits += Number(top?.[1] ?? 0) + Number(top?.[2] ?? 0);
          levelPlans.push(`-- ${name}, ${size} runs\n${text}`);
        }
        buffers.set(name, hits);
      }
      plans.set(size, levelPlans);
      results.push({ size, figures, buffers });
      console.error(
        JSON.stringify({ size, figures: Object.fromEntries(figures), buffers: Object.fromEntries(buffers) }),
      );
    }

    const first = results[0];
    const last = results.at(-1);
    const fmt = (t: Timing | undefined) => (t ? `${t.p50.toFixed(1)} / ${t.p99.toFixed(1)}` : '');
    console.log(`${context.line}; all-in-one process, ${SAMPLES} sequential requests each\n`);
    console.log(
      `| request (p50 / p99 ms) | ${results.map((r) => `${r.size.toLocaleString('en')} runs`).join(' | ')} | p50 at the largest / at the smallest |`,
    );
    console.log(`|---|${results.map(() => '---:').join('|')}|---:|`);
    for (const name of first?.figures.keys() ?? []) {
      const ratio =
        (last?.figures.get(name)?.p50 ?? Number.NaN) / (first?.figures.get(name)?.p50 ?? Number.NaN);
      console.log(
        `| ${name} | ${results.map((r) => fmt(r.figures.get(name))).join(' | ')} | ${ratio.toFixed(2)}× |`,
      );
    }
    console.log(
      `\n| statement (buffers read) | ${results.map((r) => `${r.size.toLocaleString('en')} runs`).join(' | ')} |`,
    );
    console.log(`|---|${results.map(() => '---:').join('|')}|`);
    for (const name of first?.buffers.keys() ?? []) {
      console.log(`| ${name} | ${results.map((r) => r.buffers.get(name)).join(' | ')} |`);
    }
    for (const [, levelPlans] of plans) console.log(`\n${levelPlans.join('\n\n')}`);
  } finally {
    await runnerDb.destroy();
    await eventsDb.destroy();
    await pool.end();
    await stack.stop();
  }
}

await main();
