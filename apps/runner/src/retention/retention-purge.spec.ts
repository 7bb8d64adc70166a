import { diagramShapeIssues, type OrganizationRetention, type RetentionOrganizationsPage } from '#contracts';
import type { RpcClient } from '#nats';
import { dataSourceOptions, kyselyOn, migrate } from '#persistence';
import { scratchDatabase } from '#testing';
import type { Kysely } from 'kysely';
import pino from 'pino';
import { DataSource } from 'typeorm';
import { v7 } from 'uuid';

import type { StoredRunStatus } from '../engine/run-state.js';
import type { RunnerConfig } from '../runner.config.js';
import { runnerDataSource } from '../runner.database.js';
import type { DB } from '../runner.tables.js';
import { toWorkflowRunDto } from '../runs/run-dto.util.js';
import { idFloorAt } from '../runs/run-filter.js';
import { newRunRow } from '../runs/run.mapper.js';
import { RunRepository } from '../runs/run.repository.js';
import type { NewRun } from '../runs/new-run.js';
import { UNGATED } from '../start/run-flow.js';
import { RetentionPurge } from './retention-purge.service.js';
import { RetentionRepository } from './retention.repository.js';

/**
 * The retention purge against a real Postgres database of its own: what it trims, what it leaves,
 * in batches, once, and never a live run or another organization's.
 */
const database = scratchDatabase('fm_runner_retention_spec');
const DAY_MS = 86_400_000;
const BATCH = 3;

const diagram = {
  nodes: [
    {
      id: 't',
      position: { x: 10, y: 20 },
      data: { type: 'trigger', properties: { kind: 'api', label: 'Order in' } },
    },
    {
      id: 'check',
      position: { x: 10, y: 120 },
      data: {
        type: 'condition',
        label: 'Big order?',
        properties: { conditions: [{ left: '{{trigger.card}}', operator: 'is_not_empty' }] },
      },
    },
    { id: 'db', data: { type: 'database', properties: { databaseId: 'd1', sql: 'SELECT secret FROM t' } } },
  ],
  edges: [
    { id: 'e1', source: 't', target: 'check' },
    { id: 'e2', source: 'check', target: 'db', sourceHandle: 'true', style: { stroke: 'red' } },
  ],
  settings: { onError: 'stop' },
};

describe('the retention purge', () => {
  let dataSource: DataSource;
  let db: Kysely<DB>;
  let runs: RunRepository;
  let repository: RetentionRepository;
  let purge: RetentionPurge;
  /** What the stand-in for catalog answers: pages of organizations with their settings. */
  let catalogPages: RetentionOrganizationsPage[];
  const now = new Date();

  const config = { RETENTION_INTERVAL_MS: 600_000, RETENTION_BATCH: BATCH } as RunnerConfig;

  beforeAll(async () => {
    await database.create();
    await migrate(runnerDataSource(database.url));
    dataSource = new DataSource(dataSourceOptions(runnerDataSource(database.url, 4)));
    await dataSource.initialize();
    db = kyselyOn<DB>(dataSource);
    runs = new RunRepository(db);
    repository = new RetentionRepository(db);
    // Only `purge()` asks catalog, a page at a time; the NATS path is the e2e test's.
    const catalog = {
      request: async (_entry: unknown, _caller: null, { after }: { after?: string }) =>
        catalogPages[after === undefined ? 0 : Number(after)] ?? { organizations: [], next: null },
    } as unknown as RpcClient;
    purge = new RetentionPurge(repository, catalog, config, pino({ level: 'silent' }));
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database.drop();
  });

  /** A run of `organizationId` made `ageDays` ago, in `status`, with three steps full of payload. */
  async function makeRun(
    organizationId: string,
    ageDays: number,
    status: StoredRunStatus,
    extra: { parentRunId?: string; watchEnd?: boolean } = {},
  ): Promise<string> {
    const createdAt = new Date(now.getTime() - ageDays * DAY_MS);
    const id = v7({ msecs: createdAt.getTime() });
    const run = {
      id,
      organizationId,
      workflowId: 'wf-1',
      workflowName: 'Orders',
      projectId: 'project-1',
      version: 1,
      trigger: 'api',
      triggerNodeId: 't',
      createdBy: null,
      principal: { organizationId, userId: null, keyId: 'key-1', role: 'admin' },
      input: '{"card":"4111"}',
      diagram,
      timeZone: 'UTC',
      idempotencyKey: null,
      idempotencyFingerprint: null,
      triggerOutput: { payload: '{"card":"4111"}' },
      createdAt,
      rerunOf: null,
      traceParent: null,
      errorOfRunId: null,
      flow: UNGATED,
    } satisfies NewRun;
    await db
      .insertInto('runner.runs')
      .values({
        ...newRunRow(run),
        status,
        parent_run_id: extra.parentRunId ?? null,
        watch_end: extra.watchEnd ?? false,
      })
      .execute();
    await db
      .insertInto('runner.run_steps')
      .values(
        ['t', 'check', 'db'].map((nodeId, position) => ({
          run_id: id,
          node_id: nodeId,
          position,
          status: position === 2 && status !== 'complete' ? ('waiting' as const) : ('done' as const),
          via: position === 0 ? [] : [`e${position}`],
          input: position === 0 ? null : `{"secret":"${nodeId}"}`,
          output: JSON.stringify({ result: `card 4111 at ${nodeId}` }),
          error: position === 2 ? 'kept: errors stay' : null,
          ms: 5,
          started_at: createdAt,
          state: position === 2 ? JSON.stringify({ thread: 'th-1' }) : null,
        })),
      )
      .execute();
    return id;
  }

  const stepsOf = (runId: string) =>
    db.selectFrom('runner.run_steps').selectAll().where('run_id', '=', runId).orderBy('position').execute();
  const runOf = (runId: string) =>
    db.selectFrom('runner.runs').selectAll().where('id', '=', runId).executeTakeFirstOrThrow();
  const isWhole = async (runId: string) => {
    const [steps, run] = await Promise.all([stepsOf(runId), runOf(runId)]);
    return (
      steps.every((step) => step.payload_trimmed_at === null && step.output !== null) &&
      run.diagram_trimmed_at === null &&
      JSON.stringify(run.diagram) === JSON.stringify(diagram)
    );
  };
  const payloadTrimmed = async (runId: string) =>
    (await stepsOf(runId)).every(
      (step) =>
        step.payload_trimmed_at !== null &&
        step.input === null &&
        step.output === null &&
        step.state === null,
    );
  const retention = (organizationId: string, stepPayloadDays: number | null, diagramDays: number | null) =>
    ({ organizationId, stepPayloadDays, diagramDays }) satisfies OrganizationRetention;

  describe('of an organization trimming after 30 days, beside one that keeps everything', () => {
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      // Created oldest first, so the batches of three below walk them in this order.
      ids.complete = await makeRun('org-a', 90, 'complete');
      ids.errored = await makeRun('org-a', 80, 'errored');
      ids.paused = await makeRun('org-a', 70, 'paused');
      ids.terminated = await makeRun('org-a', 60, 'terminated');
      ids.waiting = await makeRun('org-a', 50, 'waiting');
      ids.parentRunning = await makeRun('org-a', 45, 'running');
      ids.childOfRunning = await makeRun('org-a', 44, 'complete', { parentRunId: ids.parentRunning });
      ids.endingPending = await makeRun('org-a', 40, 'errored', { watchEnd: true });
      ids.edge = await makeRun('org-a', 31, 'complete');
      ids.recent = await makeRun('org-a', 29, 'complete');
      ids.today = await makeRun('org-a', 0, 'running');
      ids.otherOld = await makeRun('org-b', 90, 'complete');
      ids.otherEdge = await makeRun('org-b', 31, 'errored');
    });

    it('trims the final runs past the cutoff, in batches, and sets the live ones aside', async () => {
      // The first batch alone: three runs looked at, the paused one set aside, the watermark moved on.
      await repository.ensureProgress('org-a', 'step_payload');
      const cutoff = idFloorAt(now.getTime() - 30 * DAY_MS);
      const first = await repository.trimNext('org-a', 'step_payload', cutoff, BATCH);
      expect(first).toEqual({ busy: false, scanned: 3, runs: 2, steps: 6, deferred: 1 });
      expect(
        await db
          .selectFrom('runner.retention_progress')
          .select('last_run_id')
          .where('organization_id', '=', 'org-a')
          .where('kind', '=', 'step_payload')
          .executeTakeFirst(),
      ).toEqual({ last_run_id: ids.paused });

      const pass = await purge.purgeOrganization(retention('org-a', 30, 30), now);
      // The rest of the walk: terminated, waiting, parentRunning | childOfRunning, endingPending, edge.
      expect(pass.step_payload).toEqual({ runs: 2, steps: 6, scanned: 6, deferred: 5 });
      // Diagrams from the start, in three batches: nine runs past the cutoff, four of them final.
      expect(pass.diagram).toEqual({ runs: 4, steps: 0, scanned: 9, deferred: 5 });

      for (const key of ['complete', 'errored', 'terminated', 'edge']) {
        expect({ key, trimmed: await payloadTrimmed(ids[key]!) }).toEqual({ key, trimmed: true });
        expect((await runOf(ids[key]!)).diagram_trimmed_at).not.toBeNull();
      }
      // Live runs, a final child whose parent still runs (it reads its children), and a run whose
      // end is still being followed up (an error workflow reads it), and the recent ones: whole.
      for (const key of [
        'paused',
        'waiting',
        'parentRunning',
        'childOfRunning',
        'endingPending',
        'recent',
        'today',
      ]) {
        expect({ key, whole: await isWhole(ids[key]!) }).toEqual({ key, whole: true });
      }
      // The other organization's runs, however old, are never looked at.
      expect(await isWhole(ids.otherOld!)).toBe(true);
      expect(await isWhole(ids.otherEdge!)).toBe(true);
      const pending = await db
        .selectFrom('runner.retention_pending')
        .select(['run_id', 'kind'])
        .where('organization_id', '=', 'org-a')
        .orderBy('run_id')
        .execute();
      expect(pending.filter((row) => row.kind === 'step_payload').map((row) => row.run_id)).toEqual(
        [ids.paused, ids.waiting, ids.parentRunning, ids.childOfRunning, ids.endingPending].sort(),
      );
    });

    it('keeps what a step says about itself and trims only the payload', async () => {
      const [trigger, check, last] = await stepsOf(ids.errored!);
      expect(trigger).toMatchObject({
        node_id: 't',
        status: 'done',
        via: [],
        input: null,
        output: null,
        ms: 5,
      });
      expect(check).toMatchObject({ node_id: 'check', via: ['e1'], input: null, output: null, state: null });
      expect(last).toMatchObject({ status: 'waiting', error: 'kept: errors stay', state: null, attempt: 1 });
    });

    it('leaves a diagram that draws the same and is still a Diagram, without its properties', async () => {
      const { diagram: trimmed } = await runOf(ids.complete!);
      expect(diagramShapeIssues(trimmed)).toEqual([]);
      expect(trimmed).toEqual({
        nodes: [
          {
            id: 't',
            position: { x: 10, y: 20 },
            data: { type: 'trigger', properties: { label: 'Order in' } },
          },
          {
            id: 'check',
            position: { x: 10, y: 120 },
            data: { type: 'condition', label: 'Big order?', properties: {} },
          },
          { id: 'db', data: { type: 'database', properties: {} } },
        ],
        edges: diagram.edges,
      });
    });

    it('answers a trimmed run with null payloads and the extension flags, and an untrimmed one unchanged', async () => {
      const trimmed = toWorkflowRunDto((await runs.find('org-a', ids.complete!))!);
      expect(trimmed.diagramTrimmed).toBe(true);
      expect(
        trimmed.steps.map(({ nodeId, input, output, trimmed: flag }) => ({ nodeId, input, output, flag })),
      ).toEqual([
        { nodeId: 't', input: null, output: null, flag: true },
        { nodeId: 'check', input: null, output: null, flag: true },
        { nodeId: 'db', input: null, output: null, flag: true },
      ]);
      expect(trimmed.input).toBe('{"card":"4111"}');
      const whole = toWorkflowRunDto((await runs.find('org-a', ids.recent!))!);
      expect(whole).not.toHaveProperty('diagramTrimmed');
      expect(whole.steps.every((step) => !('trimmed' in step))).toBe(true);
    });

    it('is idempotent: a second pass trims nothing and changes no trimmed row', async () => {
      const before = await stepsOf(ids.complete!);
      const pass = await purge.purgeOrganization(retention('org-a', 30, 30), now);
      expect(pass.step_payload).toEqual({ runs: 0, steps: 0, scanned: 0, deferred: 5 });
      expect(pass.diagram).toEqual({ runs: 0, steps: 0, scanned: 0, deferred: 5 });
      expect(await stepsOf(ids.complete!)).toEqual(before);
    });

    it('trims a set-aside run once it and its parent have ended, and forgets it then', async () => {
      await db.updateTable('runner.runs').set({ status: 'complete' }).where('id', '=', ids.paused!).execute();
      await db
        .updateTable('runner.runs')
        .set({ status: 'complete' })
        .where('id', '=', ids.parentRunning!)
        .execute();
      await db.deleteFrom('runner.run_endings').where('run_id', '=', ids.endingPending!).execute();
      const pass = await purge.purgeOrganization(retention('org-a', 30, 30), now);
      expect(pass.step_payload).toEqual({ runs: 4, steps: 12, scanned: 0, deferred: 1 });
      expect(pass.diagram).toEqual({ runs: 4, steps: 0, scanned: 0, deferred: 1 });
      for (const key of ['paused', 'parentRunning', 'childOfRunning', 'endingPending']) {
        expect({ key, trimmed: await payloadTrimmed(ids[key]!) }).toEqual({ key, trimmed: true });
      }
      expect(await isWhole(ids.waiting!)).toBe(true);
      const left = await db
        .selectFrom('runner.retention_pending')
        .select('run_id')
        .where('organization_id', '=', 'org-a')
        .execute();
      expect(new Set(left.map((row) => row.run_id))).toEqual(new Set([ids.waiting]));
    });

    it('asks catalog a page at a time, and trims only the organizations it names', async () => {
      const third = await makeRun('org-c', 10, 'complete');
      catalogPages = [
        { organizations: [retention('org-a', 30, 30)], next: '1' },
        { organizations: [retention('org-c', 5, null)], next: null },
      ];
      expect(await purge.purge(now)).toEqual({
        step_payload: { runs: 1, steps: 3, scanned: 1, deferred: 1 },
        diagram: { runs: 0, steps: 0, scanned: 0, deferred: 1 },
      });
      expect(await payloadTrimmed(third)).toBe(true);
      expect((await runOf(third)).diagram_trimmed_at).toBeNull();
      expect(await isWhole(ids.otherOld!)).toBe(true);
    });
  });

  it('keeps each kind for its own days', async () => {
    const run = await makeRun('org-d', 45, 'complete');
    await purge.purgeOrganization(retention('org-d', 30, 60), now);
    expect(await payloadTrimmed(run)).toBe(true);
    expect((await runOf(run)).diagram_trimmed_at).toBeNull();
    // A longer setting later trims nothing more; a shorter one reaches the diagram.
    await purge.purgeOrganization(retention('org-d', 90, 90), now);
    expect((await runOf(run)).diagram_trimmed_at).toBeNull();
    await purge.purgeOrganization(retention('org-d', 90, 40), now);
    expect((await runOf(run)).diagram_trimmed_at).not.toBeNull();
  });

  it("leaves an organization's walk to the replica holding it, without waiting for it", async () => {
    const run = await makeRun('org-e', 45, 'complete');
    await repository.ensureProgress('org-e', 'step_payload');
    const other = await db.startTransaction().execute();
    try {
      await other
        .selectFrom('runner.retention_progress')
        .select('last_run_id')
        .where('organization_id', '=', 'org-e')
        .forUpdate()
        .execute();
      const started = Date.now();
      const pass = await purge.purgeOrganization(retention('org-e', 30, null), now);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(pass.step_payload.runs).toBe(0);
      expect(await isWhole(run)).toBe(true);
    } finally {
      await other.rollback().execute();
    }
    expect((await purge.purgeOrganization(retention('org-e', 30, null), now)).step_payload.runs).toBe(1);
  });
});
