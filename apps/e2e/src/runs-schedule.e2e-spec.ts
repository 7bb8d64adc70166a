import {
  createOrganization,
  createProject,
  createWorkflow,
  edge,
  freePort,
  getWorkflow,
  nodes,
  type OrganizationFixture,
  publishWorkflow,
  runningStack,
  runReaches,
  runsOf,
  type ServiceProcess,
  startService,
  waitFor,
} from '#testing';
import pg from 'pg';

const stack = runningStack();

/**
 * Scheduled runs end to end: the workflow service fires due schedules, the runner runs them. Two
 * workflow replicas poll at once; each due time must become exactly one real run. An every-minute
 * cron would make the test wait for the clock, so (like the scheduler's own tests) the schedule rows
 * of a yearly cron are made due by hand.
 */
describe('scheduled runs', () => {
  let org: OrganizationFixture;
  let projectId: string;
  let db: pg.Client;
  let replica: ServiceProcess;

  beforeAll(async () => {
    org = await createOrganization(stack);
    projectId = await createProject(org.api, 'Scheduled runs');
    db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
    const port = await freePort();
    replica = await startService('workflow', {
      name: 'workflow-runs-replica',
      env: { ...stack.env, HEALTH_PORT: String(port), SCHEDULER_INTERVAL_MS: '50' },
      readyUrl: `http://127.0.0.1:${port}/health`,
    });
  });

  afterAll(async () => {
    await replica?.stop();
    await db?.end();
  });

  async function scheduledWorkflow(): Promise<string> {
    const diagram = {
      nodes: [
        nodes.schedule('nightly', '0 0 1 1 *'),
        nodes.condition('check', [{ left: '{{trigger}}', operator: 'is_empty' }]),
      ],
      edges: [edge('e', 'nightly', 'check')],
    };
    const id = await createWorkflow(org.api, projectId, diagram, { name: 'Nightly', publish: false });
    await publishWorkflow(org.api, id, { timeZone: 'Europe/Paris' });
    return id;
  }

  it('fires a schedule once per due time with two workflow replicas, and moves nextRunAt on', async () => {
    const workflowIds = await Promise.all([scheduledWorkflow(), scheduledWorkflow(), scheduledWorkflow()]);
    const dues: Date[] = [];
    for (let round = 0; round < 3; round += 1) {
      const due = new Date(Math.floor(Date.now() / 1000) * 1000 - 1000 - round);
      dues.push(due);
      const made = await db.query(
        'UPDATE workflow.schedules SET next_run_at = $1 WHERE workflow_id = ANY($2)',
        [due, workflowIds],
      );
      expect(made.rowCount).toBe(workflowIds.length);
      // Once no row is due at that time any more, every start for it has been answered.
      await waitFor(
        async () => {
          const { rows } = await db.query<{ due: number }>(
            'SELECT count(*)::int AS due FROM workflow.schedules WHERE workflow_id = ANY($1) AND next_run_at <= $2',
            [workflowIds, due],
          );
          return rows[0]!.due === 0 ? true : undefined;
        },
        { what: 'the schedules to move on' },
      );
    }

    for (const workflowId of workflowIds) {
      const runs = await runsOf(org.api, workflowId);
      expect(runs).toHaveLength(dues.length);
      for (const run of runs) {
        expect(run).toMatchObject({ workflowId, trigger: 'schedule', triggerNodeId: 'nightly', version: 1 });
        expect(run.createdBy).toBeNull();
      }
      const keys = await db.query<{ idempotency_key: string }>(
        'SELECT idempotency_key FROM runner.runs WHERE workflow_id = $1 ORDER BY id',
        [workflowId],
      );
      expect(keys.rows.map((row) => row.idempotency_key).sort()).toEqual(
        dues.map((due) => `schedule:${workflowId}:nightly:${due.toISOString()}`).sort(),
      );
      const complete = await Promise.all(
        runs.map((run) =>
          runReaches(org.api, run.id, ['complete'], { what: `scheduled run ${run.id} to complete` }),
        ),
      );
      expect(complete.map((run) => run.reply)).toEqual(runs.map(() => 'true'));

      const { nextRunAt } = await getWorkflow(org.api, workflowId);
      expect(Date.parse(nextRunAt ?? '')).toBeGreaterThan(Date.now());
    }
  });
});
