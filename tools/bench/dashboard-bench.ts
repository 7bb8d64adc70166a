/**
 * Dashboard benchmark: `GET /api/v1/dashboard` for an organization with 100,000 runs (one in twenty
 * errored, three steps each, spread over the last nine days), at 1 and 10 connections. The runs are
 * copied in SQL from a real run, and catalog's day counters are set to match, as if they had been
 * started through the API. It also prints the plans of the runner's two dashboard queries, to show
 * they walk an index rather than the runs.
 *
 *   npm run build && node dist/tools/bench/dashboard-bench.js [--runs 100000] [--seconds 10]
 */
import { chainOf, createOrganization, databaseUrl, nodes, TestStack, waitFor } from '#testing';
import pg from 'pg';

import { argument } from './src/context.js';
import { load, table } from './src/measure.js';

const runCount = Number(argument('runs', '100000'));
const seconds = Number(argument('seconds', '10'));

const stack = await TestStack.start(
  { RATE_LIMIT_PER_HOUR: '100000000', LOG_LEVEL: 'warn' },
  { services: ['catalog', 'workflow', 'runner', 'events', 'agent'] },
);
const db = new pg.Client({ connectionString: databaseUrl(stack.description.databaseName) });
await db.connect();
try {
  const org = await createOrganization(stack.description, { plan: 'enterprise' });
  const project = await org.api.post('/api/v1/projects', { name: 'Dashboard bench' });
  const created = await org.api.post(`/api/v1/projects/${project.body.id}/workflows`, {
    name: 'Busy',
    diagram: chainOf(nodes.trigger('t'), nodes.alwaysTrue('a'), nodes.alwaysTrue('b')),
  });
  await org.api.post(`/api/v1/workflows/${created.body.id}/publish`, {});
  const template = await org.api.post(`/api/v1/workflows/${created.body.id}/runs`, {});
  await waitFor(
    async () =>
      (await org.api.get(`/api/v1/runs/${template.body.id}`)).body.status === 'complete' ? true : undefined,
    { what: 'the template run' },
  );

  const seeding = Date.now();
  await db.query(
    `INSERT INTO runner.runs (id, organization_id, workflow_id, workflow_name, project_id, version, trigger,
       trigger_node_id, status, created_by, principal, input, diagram, time_zone, dispatch, lease_token,
       claims, created_at, started_at, finished_at, error)
     SELECT gen_random_uuid(), t.organization_id, t.workflow_id, t.workflow_name, t.project_id, t.version,
       t.trigger, t.trigger_node_id, CASE WHEN g % 20 = 0 THEN 'errored' ELSE 'complete' END, t.created_by,
       t.principal, t.input, t.diagram, t.time_zone, 0, 1, 1,
       now() - g * interval '8 seconds', now() - g * interval '8 seconds',
       now() - g * interval '8 seconds' + interval '20 milliseconds',
       CASE WHEN g % 20 = 0 THEN 'Step b failed: boom' END
     FROM runner.runs t, generate_series(1, $2::int) AS g WHERE t.id = $1`,
    [template.body.id, runCount],
  );
  await db.query(
    `INSERT INTO runner.run_steps (run_id, node_id, position, status, via, input, output, error, ms, started_at)
     SELECT r.id, s.node_id, s.position,
       CASE WHEN r.status = 'errored' AND s.node_id = 'b' THEN 'error' ELSE s.status END,
       s.via, s.input, s.output,
       CASE WHEN r.status = 'errored' AND s.node_id = 'b' THEN 'boom' END, s.ms, r.created_at
     FROM runner.runs r, runner.run_steps s
     WHERE r.organization_id = $1 AND r.id <> $2 AND s.run_id = $2`,
    [org.organizationId, template.body.id],
  );
  await db.query(
    `INSERT INTO catalog.run_days (organization_id, day, runs)
     SELECT organization_id, (created_at AT TIME ZONE 'UTC')::date, count(*) FROM runner.runs
      WHERE organization_id = $1 GROUP BY 1, 2
     ON CONFLICT (organization_id, day) DO UPDATE SET runs = excluded.runs`,
    [org.organizationId],
  );
  await db.query('ANALYZE runner.runs');
  await db.query('ANALYZE runner.run_steps');
  const seeded = (
    await db.query('SELECT count(*)::int AS runs FROM runner.runs WHERE organization_id = $1', [
      org.organizationId,
    ])
  ).rows[0].runs as number;
  console.log(`seeded ${seeded} runs in ${((Date.now() - seeding) / 1000).toFixed(1)} s`);

  const first = await org.api.get('/api/v1/dashboard');
  if (first.status !== 200) throw new Error(`dashboard answered ${first.status}`);
  console.log(
    `dashboard: ${first.body.runs.length} runs, ${first.body.failures.length} failures, runsThisWeek ${first.body.counts.runsThisWeek}, activity ${first.body.activity.map((day: { runs: number }) => day.runs).join('/')}`,
  );

  for (const [label, sql] of [
    [
      'recent runs',
      `SELECT id, workflow_id, workflow_name, project_id, trigger, status, created_at FROM runner.runs
        WHERE organization_id = $1 ORDER BY created_at DESC LIMIT 10`,
    ],
    [
      'failures',
      `SELECT r.id, s.node_id FROM (SELECT id, finished_at FROM runner.runs
          WHERE organization_id = $1 AND status = 'errored' AND finished_at >= now() - interval '7 days'
          ORDER BY finished_at DESC LIMIT 20) r
        JOIN runner.run_steps s ON s.run_id = r.id AND s.status = 'error' ORDER BY r.finished_at DESC LIMIT 20`,
    ],
  ] as const) {
    const plan = await db.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`, [org.organizationId]);
    console.log(`\n${label}:\n${plan.rows.map((row) => `  ${row['QUERY PLAN']}`).join('\n')}`);
  }

  const rows = [];
  for (const connections of [1, 10]) {
    rows.push(
      await load({
        url: `${stack.baseUrl}/api/v1/dashboard`,
        connections,
        duration: seconds,
        headers: { authorization: `Bearer ${org.apiKey}` },
      }),
    );
  }
  console.log(`\n${table(`GET /api/v1/dashboard, ${seeded} runs in the organization`, rows)}`);
} finally {
  await db.end();
  await stack.stop();
}
