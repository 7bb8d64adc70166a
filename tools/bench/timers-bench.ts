/**
 * Timers at scale, with two runners (one process per service, as `deploy/` runs them).
 *
 * Delays: `--delays` runs (100,000) wait on a delay step, due over one minute. They are copies, in SQL,
 * of a real run waiting on a delay (the API would take minutes to start them). For each run it
 * reports how late, after its due time, the sweeper moved it back to the queue (`woken`), the delay
 * step found itself due (`resumed`), and the run completed. Before they are due it samples what the
 * idle sweep costs: the runners' CPU over 10 s and the sweep statement's buffers, with no run waiting
 * and with every run waiting on a time an hour away.
 *
 * Schedules: `--schedules` published workflows (10,000) whose schedule trigger fires every minute
 * (copies, in SQL, of one published through the API). For the first minute they are all due it
 * reports how late each run went on after that minute (let past the schedule gate, for a run written
 * before it; written, for one written after it), and that each fired exactly once.
 *
 *   npm run build && node dist/tools/bench/timers-bench.js [--delays 100000] [--schedules 10000]
 *     [--part delays|schedules|both] [--until complete|woken]
 */
// It explains the sweeper's own statement, so it imports the runner's repository.
/* eslint-disable @nx/enforce-module-boundaries */
import { createOrganization, databaseUrl, nodes, TestStack, waitFor } from '#testing';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';

import type { DB as RunnerTables } from '../../apps/runner/src/runner.tables.js';
import { RunControlRepository } from '../../apps/runner/src/runs/run-control.repository.js';
/* eslint-enable @nx/enforce-module-boundaries */

import { argument, benchContext } from './src/context.js';
import { cpuSecondsOf } from './src/measure.js';

const DELAYS = Number(argument('delays', '100000'));
const SCHEDULES = Number(argument('schedules', '10000'));
const PART = argument('part', 'both');
// `woken`: the delays stop once every run is back in the queue (their execution is not waited for).
const UNTIL = argument('until', 'complete');

/** Of the values there are (a run not yet resumed or complete has none). */
const percentiles = (values: (number | string | null)[]) => {
  const sorted = values
    .filter((value) => value !== null)
    .map(Number)
    .sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
  return `${at(0.5).toFixed(0)} / ${at(0.99).toFixed(0)} / ${(sorted.at(-1) ?? Number.NaN).toFixed(0)}`;
};

async function main(): Promise<void> {
  const context = benchContext();
  const stack = await TestStack.start(
    { RATE_LIMIT_PER_HOUR: '1000000000', LOG_LEVEL: 'warn', DATABASE_POOL_SIZE: '10' },
    { services: ['catalog', 'workflow', 'runner', 'events', 'agent'] },
  );
  await stack.startService('runner', {}, 'runner-2');
  const pool = new pg.Pool({ connectionString: databaseUrl(stack.description.databaseName), max: 4 });
  let captured: { sql: string; parameters: readonly unknown[] } | undefined;
  const runnerDb = new Kysely<RunnerTables>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: stack.env.DATABASE_URL, max: 1 }) }),
    log: (event) => {
      if (event.level === 'query') captured = { sql: event.query.sql, parameters: event.query.parameters };
    },
  });
  const runners = ['runner', 'runner-2'].map((name) => stack.processes.get(name)?.child.pid ?? 0);
  const runnersCpu = () => runners.reduce((sum, pid) => sum + cpuSecondsOf(pid), 0);
  const lines: string[] = [`${context.line}; two runners, one process per service`];
  try {
    const org = await createOrganization(stack.description, { plan: 'enterprise' });
    const project = await org.api.post('/api/v1/projects', { name: 'Timers bench' });
    const projectId = project.body.id as string;

    if (PART !== 'schedules') {
      const created = await org.api.post(`/api/v1/projects/${projectId}/workflows`, {
        name: 'Delayed',
        diagram: {
          nodes: [nodes.trigger('t'), nodes.delay('wait', { until: '{{trigger.due}}' })],
          edges: [{ id: 'e1', source: 't', target: 'wait' }],
        },
      });
      const workflowId = created.body.id as string;
      await org.api.post(`/api/v1/workflows/${workflowId}/publish`, {});
      const template = await org.api.post(`/api/v1/workflows/${workflowId}/runs`, {
        input: JSON.stringify({ due: new Date(Date.now() + 86_400_000).toISOString() }),
      });
      const templateId = template.body.id as string;
      await waitFor(
        async () =>
          (await org.api.get(`/api/v1/runs/${templateId}`)).body.status === 'waiting' ? true : undefined,
        { what: 'the template run to wait' },
      );

      const idle = async (label: string) => {
        const before = runnersCpu();
        const began = performance.now();
        await new Promise((resolve) => setTimeout(resolve, 10_000));
        const cpu = ((runnersCpu() - before) / ((performance.now() - began) / 1000)) * 100;
        await new RunControlRepository(runnerDb).sweep(200, 30_000, 30_000);
        if (!captured) throw new Error('no sweep statement was logged');
        const { rows } = await pool.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) ${captured.sql}`,
          [...captured.parameters],
        );
        const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
        const buffers = /Buffers: shared hit=(\d+)/.exec(plan)?.[1];
        const time = /Execution Time: ([\d.]+)/.exec(plan)?.[1];
        lines.push(`| ${label} | ${cpu.toFixed(2)} % of a core | ${buffers} | ${time} ms |`);
        return plan;
      };
      lines.push(
        '',
        "| idle sweep, nothing due | two runners' CPU | sweep buffers | sweep time |",
        '|---|---:|---:|---:|',
      );
      await idle('no run waiting but one');

      // Every copy waits on a time an hour away, then all are moved to their due times at once.
      const began = Date.now();
      await pool.query(
        `INSERT INTO runner.runs (id, organization_id, workflow_id, workflow_name, project_id, version, trigger,
           trigger_node_id, status, created_by, principal, input, diagram, time_zone, dispatch, lease_token,
           claims, created_at, started_at, wake_at)
         SELECT (lpad(to_hex((extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0') || '7' ||
                 substr(md5(g::text), 1, 3) || '8' || substr(md5(g::text), 4, 15))::uuid,
           t.organization_id, t.workflow_id, t.workflow_name, t.project_id, t.version, t.trigger,
           t.trigger_node_id, 'waiting', t.created_by, t.principal, t.input, t.diagram, t.time_zone, 1, 1, 1,
           now(), now(), now() + interval '1 hour'
         FROM runner.runs t, generate_series(1, $2::int) AS g WHERE t.id = $1`,
        [templateId, DELAYS],
      );
      await pool.query(
        `INSERT INTO runner.run_steps (run_id, node_id, position, status, via, input, output, ms, started_at,
           state, wake_at)
         SELECT r.id, s.node_id, s.position, s.status, s.via, s.input, s.output, s.ms, r.created_at, s.state,
           s.wake_at
         FROM runner.runs r, runner.run_steps s
         WHERE r.workflow_id = $2 AND r.id <> $1 AND s.run_id = $1`,
        [templateId, workflowId],
      );
      await pool.query('VACUUM ANALYZE runner.runs, runner.run_steps');
      lines.push(
        `| ${DELAYS} runs waiting, due in an hour (inserted in ${((Date.now() - began) / 1000).toFixed(0)} s) |`,
      );
      const idlePlan = await idle(`${DELAYS} runs waiting, none due`);

      // Due over one minute from 15 s from now: the run, its delay step's kept due time and its input.
      const { rows: starts } = await pool.query<{ t0: Date }>(`SELECT now() + interval '15 seconds' AS t0`);
      const t0 = starts[0]?.t0 ?? new Date();
      await pool.query(
        `WITH due AS (
           SELECT id, $2::timestamptz + (row_number() OVER (ORDER BY id) - 1) * (interval '60 seconds' / $3::int) AS at
             FROM runner.runs WHERE workflow_id = $1 AND status = 'waiting'
         ), steps AS (
           UPDATE runner.run_steps s
              SET wake_at = due.at,
                  input = to_char(due.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                  state = jsonb_build_object('until', to_char(due.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
             FROM due WHERE s.run_id = due.id AND s.node_id = 'wait'
         )
         UPDATE runner.runs r SET wake_at = due.at FROM due WHERE r.id = due.id`,
        [workflowId, t0, DELAYS + 1],
      );
      const waitBegan = Date.now();
      await waitFor(
        async () => {
          const { rows } = await pool.query<{ n: number }>(
            UNTIL === 'woken'
              ? `SELECT count(*)::int AS n FROM runner.runs WHERE workflow_id = $1 AND status = 'waiting'`
              : `SELECT count(*)::int AS n FROM runner.runs WHERE workflow_id = $1 AND status <> 'complete'`,
            [workflowId],
          );
          return rows[0]?.n === 0 ? true : undefined;
        },
        { what: 'every delayed run to complete', timeoutMs: 15 * 60_000, intervalMs: 1_000 },
      );
      const { rows: late } = await pool.query<{
        woken: string;
        resumed: string | null;
        completed: string | null;
      }>(
        // The delay step's input is the due time it waited for (the step's wake time is cleared).
        `SELECT extract(epoch FROM r.dispatched_at - s.input::timestamptz) * 1000 AS woken,
                extract(epoch FROM (s.output->>'until')::timestamptz - s.input::timestamptz) * 1000 AS resumed,
                extract(epoch FROM r.finished_at - s.input::timestamptz) * 1000 AS completed
           FROM runner.runs r JOIN runner.run_steps s ON s.run_id = r.id AND s.node_id = 'wait'
          WHERE r.workflow_id = $1 AND r.id <> $2`,
        [workflowId, templateId],
      );
      lines.push(
        '',
        `${late.length} delayed runs due over one minute, all ${UNTIL} ${((Date.now() - waitBegan) / 1000 - 15).toFixed(0)} s after the first was due`,
        '',
        '| lateness after the due time (ms) | p50 / p99 / max |',
        '|---|---|',
        `| woken (moved back to the queue) | ${percentiles(late.map((row) => row.woken))} |`,
        `| resumed (the delay step ran) | ${percentiles(late.map((row) => row.resumed))} |`,
        `| completed | ${percentiles(late.map((row) => row.completed))} |`,
        '',
        '```text',
        idlePlan,
        '```',
      );
      console.error(lines.join('\n'));
    }

    if (PART !== 'delays') {
      const created = await org.api.post(`/api/v1/projects/${projectId}/workflows`, {
        name: 'Scheduled',
        diagram: { nodes: [nodes.schedule('s', '* * * * *')], edges: [] },
      });
      const workflowId = created.body.id as string;
      await org.api.post(`/api/v1/workflows/${workflowId}/publish`, {});
      const began = Date.now();
      // Copies of the workflow, its live version and its schedule row, all due at the same minute.
      await pool.query(
        `CREATE TABLE public.copies AS
           SELECT (lpad(to_hex((extract(epoch FROM now()) * 1000)::bigint), 12, '0') || '7' ||
                   substr(md5('w' || g), 1, 3) || '8' || substr(md5('w' || g), 4, 15))::uuid AS id, g
             FROM generate_series(1, $1::int) AS g`,
        [SCHEDULES - 1],
      );
      await pool.query(
        `INSERT INTO workflow.workflows (id, organization_id, project_id, name, description, diagram,
           published_version, created_by)
         SELECT c.id, w.organization_id, w.project_id, w.name || ' ' || c.g, w.description, w.diagram,
           w.published_version, w.created_by
         FROM workflow.workflows w, public.copies c WHERE w.id = $1`,
        [workflowId],
      );
      await pool.query(
        `INSERT INTO workflow.versions (id, workflow_id, number, time_zone, diagram, published_by)
         SELECT gen_random_uuid(), c.id, v.number, v.time_zone, v.diagram, v.published_by
         FROM workflow.versions v, public.copies c WHERE v.workflow_id = $1`,
        [workflowId],
      );
      const { rows: dues } = await pool.query<{ due: Date }>(
        `SELECT date_trunc('minute', now() + interval '75 seconds') AS due`,
      );
      const due = dues[0]?.due ?? new Date();
      await pool.query(
        `INSERT INTO workflow.schedules (workflow_id, trigger_node_id, organization_id, version, cron, time_zone, next_run_at)
         SELECT c.id, s.trigger_node_id, s.organization_id, s.version, s.cron, s.time_zone, $2
         FROM workflow.schedules s, public.copies c WHERE s.workflow_id = $1`,
        [workflowId, due],
      );
      await pool.query('UPDATE workflow.schedules SET next_run_at = $1 WHERE workflow_id = $2', [
        due,
        workflowId,
      ]);
      await pool.query('VACUUM ANALYZE workflow.workflows, workflow.versions, workflow.schedules');
      console.error(
        `${SCHEDULES} schedules in ${((Date.now() - began) / 1000).toFixed(0)} s, due ${due.toISOString()}`,
      );

      // The runs of that due time: their idempotency key ends with it (docs/workflows.md).
      const ofDueTime = `trigger = 'schedule' AND idempotency_key LIKE '%:' || $1::text`;
      const fired = `SELECT count(*)::int AS n, count(DISTINCT workflow_id)::int AS workflows FROM runner.runs
                      WHERE ${ofDueTime}`;
      // A run written before its minute goes on when the sweeper lets it past the schedule gate:
      // watched every 20 ms (each is reported at the first look that no longer finds it held, so at
      // most a look late). A run written after its minute goes on when it is written.
      const dueMs = due.getTime();
      const seenHeld = new Set<string>();
      const goneOnAfter = new Map<string, number>();
      await waitFor(
        async () => {
          const { rows } = await pool.query<{ id: string }>(
            `SELECT id FROM runner.runs WHERE held_by = 'schedule' AND status = 'queued'`,
          );
          const at = Date.now();
          const held = new Set(rows.map((row) => row.id));
          for (const id of held) seenHeld.add(id);
          for (const id of seenHeld)
            if (!held.has(id) && !goneOnAfter.has(id)) goneOnAfter.set(id, at - dueMs);
          if (held.size > 0 || at < dueMs) return undefined;
          const { rows: counted } = await pool.query<{ n: number }>(fired, [due.toISOString()]);
          return (counted[0]?.n ?? 0) >= SCHEDULES ? true : undefined;
        },
        { what: 'every schedule to fire', timeoutMs: 5 * 60_000, intervalMs: 20 },
      );
      const { rows: counts } = await pool.query<{ n: number; workflows: number }>(fired, [due.toISOString()]);
      const { rows: written } = await pool.query<{ id: string; ms: number }>(
        `SELECT id, extract(epoch FROM created_at - $2::timestamptz) * 1000 AS ms FROM runner.runs WHERE ${ofDueTime}`,
        [due.toISOString(), due],
      );
      const late = written.map(({ id, ms }) => goneOnAfter.get(id) ?? Math.max(0, Number(ms)));
      const early = written.filter(({ ms }) => Number(ms) < 0);
      // Started inline by the runner that accepted it, written queued with a job, or still held (for
      // its organization's share of the queue) when the last went on.
      const { rows: paths } = await pool.query<{ inline: number; queued: number; held: number }>(
        `SELECT count(*) FILTER (WHERE dispatched_at IS NULL AND held_by IS NULL)::int AS inline,
                count(*) FILTER (WHERE dispatched_at IS NOT NULL)::int AS queued,
                count(*) FILTER (WHERE held_by IS NOT NULL)::int AS held
           FROM runner.runs WHERE ${ofDueTime}`,
        [due.toISOString()],
      );
      lines.push(
        '',
        `| ${SCHEDULES} schedules every minute, the first minute | runs | workflows | written before the minute (earliest) | run went on after the minute p50 / p99 / max ms | started inline / queued / still held |`,
        '|---|---:|---:|---|---|---|',
        `| fired | ${counts[0]?.n} | ${counts[0]?.workflows} | ${early.length} (${(-Math.min(0, ...written.map(({ ms }) => Number(ms))) / 1000).toFixed(1)} s) | ${percentiles(late)} | ${paths[0]?.inline} / ${paths[0]?.queued} / ${paths[0]?.held} |`,
      );
    }
    console.log(lines.join('\n'));
  } finally {
    await runnerDb.destroy();
    await pool.end();
    await stack.stop();
  }
}

await main();
