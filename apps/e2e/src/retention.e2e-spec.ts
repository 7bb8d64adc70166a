import {
  adminCli,
  chainOf,
  createOrganization,
  createProject,
  createWorkflow,
  type ErrorBody,
  nodes,
  type OrganizationFixture,
  runningStack,
  runToEnd,
  waitFor,
  type WorkflowRun,
} from '#testing';
import pg from 'pg';
import { v7 } from 'uuid';

const stack = runningStack();
const DAY_MS = 86_400_000;

/**
 * Operator-set retention end to end (docs/retention.md): the admin CLI sets it, the runner's purge
 * (every second in the shared stack, `RETENTION_INTERVAL_MS`) trims, and the API shows it. A run
 * cannot be made old through the API, so the test copies a finished run under an id of 40 days ago,
 * as a run started then would have.
 */
describe('retention', () => {
  let org: OrganizationFixture;
  let other: OrganizationFixture;
  let db: pg.Client;

  beforeAll(async () => {
    [org, other] = await Promise.all([createOrganization(stack), createOrganization(stack)]);
    db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
  });

  /** A finished run of `fixture` (a trigger with a label, then a condition reading the input). */
  async function finishedRun(fixture: OrganizationFixture): Promise<WorkflowRun> {
    const projectId = await createProject(fixture.api, 'Retention');
    const workflowId = await createWorkflow(
      fixture.api,
      projectId,
      chainOf(
        nodes.trigger('t', { kind: 'api', label: 'Order in' }),
        nodes.condition('c', [{ left: '{{trigger.card}}', operator: 'is_not_empty' }]),
      ),
    );
    return runToEnd(fixture.api, workflowId, { input: '{"card":"4111 1111"}' });
  }

  /** Copies a run and its steps under a UUIDv7 of `days` ago; answers the copy's id. */
  async function copyAged(runId: string, days: number): Promise<string> {
    const at = Date.now() - days * DAY_MS;
    const id = v7({ msecs: at });
    await db.query(
      `INSERT INTO runner.runs
       SELECT (jsonb_populate_record(r, jsonb_build_object('id', $2::uuid, 'created_at', $3::timestamptz))).*
       FROM runner.runs r WHERE r.id = $1`,
      [runId, id, new Date(at)],
    );
    await db.query(
      `INSERT INTO runner.run_steps
       SELECT (jsonb_populate_record(s, jsonb_build_object('run_id', $2::uuid))).*
       FROM runner.run_steps s WHERE s.run_id = $1`,
      [runId, id],
    );
    return id;
  }

  const read = async (fixture: OrganizationFixture, id: string) =>
    (await fixture.api.GET('/api/v1/runs/{id}', { params: { path: { id } } })).data!;

  it("trims an old run's step payloads and diagram once the operator sets a retention, and nothing else", async () => {
    const [recent, otherRecent] = await Promise.all([finishedRun(org), finishedRun(other)]);
    const [oldId, otherOldId] = await Promise.all([copyAged(recent.id, 40), copyAged(otherRecent.id, 40)]);
    expect(await read(org, oldId)).toMatchObject({ status: 'unknown', steps: recent.steps });

    expect(
      await adminCli(
        [
          'retention',
          'set',
          '--org',
          org.organizationId,
          '--step-payload-days',
          '30',
          '--diagram-days',
          '30',
        ],
        stack.env,
      ),
    ).toEqual({
      organizationId: org.organizationId,
      plan: 'enterprise',
      overrides: { stepPayloadDays: 30, diagramDays: 30 },
      effective: { stepPayloadDays: 30, diagramDays: 30 },
    });

    const trimmed = await waitFor(
      async () => {
        const run = await read(org, oldId);
        return run.diagramTrimmed && run.steps.every((step) => step.trimmed) ? run : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'the purge to trim the old run' },
    );
    expect(trimmed).toMatchObject({ id: oldId, status: 'unknown', input: recent.input, reply: recent.reply });
    expect(trimmed.steps).toEqual(
      recent.steps.map((step) => ({ ...step, input: null, output: null, trimmed: true })),
    );
    expect(trimmed.diagram).toEqual({
      nodes: [
        { id: 't', data: { type: 'trigger', properties: { label: 'Order in' } } },
        { id: 'c', data: { type: 'condition', properties: {} } },
      ],
      edges: recent.diagram.edges,
    });

    // The recent run, and another organization's old one, are as they were.
    expect(await read(org, recent.id)).toEqual(recent);
    const otherOld = await read(other, otherOldId);
    expect(otherOld.steps).toEqual(otherRecent.steps);
    expect(otherOld).not.toHaveProperty('diagramTrimmed');

    // A rerun would run the trimmed diagram: refused, in the contract's shape.
    const rerun = await org.api.POST('/api/v1/runs/{id}/rerun', {
      params: { path: { id: oldId } },
      body: {},
    });
    expect(rerun.response.status).toBe(400);
    expect(rerun.error as ErrorBody).toEqual({
      error: {
        code: 'invalid_request',
        message: expect.any(String),
        details: { issues: [{ path: 'id', message: expect.stringContaining('trimmed by retention') }] },
      },
    });

    const shown = await adminCli<{ organizations: unknown[] }>(
      ['retention', 'show', '--org', org.organizationId],
      stack.env,
    );
    expect(shown.organizations).toEqual([
      {
        organizationId: org.organizationId,
        plan: 'enterprise',
        overrides: { stepPayloadDays: 30, diagramDays: 30 },
        effective: { stepPayloadDays: 30, diagramDays: 30 },
      },
    ]);
  });

  it("sets a plan's retention as docs/retention.md shows it, and refuses a command that names no scope or setting", async () => {
    // No run of the shared stack is older than a day (only the copies above, of an enterprise
    // organization), so a plan's setting for a moment trims nothing of the other tests'.
    const asDocumented = [
      'retention',
      'set',
      '--plan',
      'free',
      '--step-payload-days',
      '30',
      '--diagram-days',
      '90',
    ];
    try {
      expect(await adminCli(asDocumented, stack.env)).toEqual({
        plan: 'free',
        stepPayloadDays: 30,
        diagramDays: 90,
      });
      const shown = await adminCli<{ plans: unknown[] }>(['retention', 'show'], stack.env);
      expect(shown.plans).toContainEqual({ plan: 'free', stepPayloadDays: 30, diagramDays: 90 });
    } finally {
      await adminCli(
        ['retention', 'set', '--plan', 'free', '--step-payload-days', 'keep', '--diagram-days', 'keep'],
        stack.env,
      );
    }
    for (const args of [
      ['retention', 'set', '--step-payload-days', '30'],
      ['retention', 'set', '--org', org.organizationId, '--diagram-days', '0'],
    ]) {
      const refused = await adminCli(args, stack.env).catch((error: { code?: number }) => error);
      expect({ args, code: (refused as { code?: number }).code }).toEqual({ args, code: 2 });
    }
  });
});
