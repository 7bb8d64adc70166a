import { dataSourceOptions, kyselyOn, migrate, newId } from '#persistence';
import { scratchDatabase } from '#testing';
import { type ControlledTransaction, type Kysely, sql, type UpdateObject } from 'kysely';
import { DataSource } from 'typeorm';

import type { StepRecord } from '../engine/run-state.js';
import { runnerDataSource } from '../runner.database.js';
import type { DB } from '../runner.tables.js';
import { type NewRun, triggerStepOf } from './new-run.js';
import { RunControlRepository } from './run-control.repository.js';
import { RunListRepository } from './run-list.repository.js';
import { RunRepository } from './run.repository.js';
import { UNGATED } from '../start/run-flow.js';

/**
 * The claims and fences every reliability rule rests on, against a real Postgres database of its own.
 */
const database = scratchDatabase('fm_runner_spec');

const LEASE_MS = 60_000;

function newRun(overrides: Partial<NewRun> = {}): NewRun {
  return {
    id: newId(),
    organizationId: 'org-1',
    workflowId: 'wf-1',
    workflowName: 'Workflow',
    projectId: 'project-1',
    version: 1,
    trigger: 'api',
    triggerNodeId: 't',
    createdBy: null,
    principal: { organizationId: 'org-1', userId: null, keyId: 'key-1', role: 'admin' },
    input: '{"a":1}',
    diagram: {
      nodes: [{ id: 't', data: { type: 'trigger', properties: { kind: 'api' } }, x: 1 }],
      edges: [],
    },
    timeZone: 'UTC',
    idempotencyKey: null,
    idempotencyFingerprint: null,
    triggerOutput: { payload: '{"a":1}' },
    createdAt: new Date(),
    rerunOf: null,
    traceParent: null,
    errorOfRunId: null,
    flow: UNGATED,
    ...overrides,
  };
}

function step(nodeId: string, overrides: Partial<StepRecord> = {}): StepRecord {
  return {
    nodeId,
    position: 1,
    status: 'done',
    via: ['e1'],
    input: 'in',
    output: { result: 'true' },
    error: null,
    ms: 3,
    startedAt: new Date(),
    attempt: 1,
    route: 'true',
    state: null,
    compensation: false,
    carriedFrom: null,
    wakeAt: null,
    payloadTrimmedAt: null,
    ...overrides,
  };
}

describe('the run repositories', () => {
  let dataSource: DataSource;
  let db: Kysely<DB>;
  let runs: RunRepository;
  let lists: RunListRepository;
  let control: RunControlRepository;

  beforeAll(async () => {
    await database.create();
    await migrate(runnerDataSource(database.url));
    dataSource = new DataSource(dataSourceOptions(runnerDataSource(database.url, 4)));
    await dataSource.initialize();
    db = kyselyOn<DB>(dataSource);
    runs = new RunRepository(db);
    lists = new RunListRepository(db);
    control = new RunControlRepository(db);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database.drop();
  });

  /** Sets columns of a run by hand, to stage what time or a crash would leave. */
  const setRun = (id: string, columns: UpdateObject<DB, 'runner.runs'>) =>
    db.updateTable('runner.runs').set(columns).where('id', '=', id).execute();
  const ago = (interval: string) => sql<Date>`now() - ${interval}::interval`;

  it('writes a run with its trigger step and reads it back with the diagram unchanged', async () => {
    const run = newRun();
    expect(await runs.insert(run)).toBe('recorded');
    const found = await runs.find('org-1', run.id);
    expect(found?.run).toMatchObject({
      id: run.id,
      status: 'queued',
      diagram: run.diagram,
      principal: run.principal,
    });
    expect(found?.steps).toEqual([
      expect.objectContaining({ nodeId: 't', status: 'done', output: { payload: '{"a":1}' }, position: 0 }),
    ]);
    expect(await runs.find('org-2', run.id)).toBeNull();
  });

  it('lets one run hold an idempotency key for its lifetime, then frees the key', async () => {
    const first = newRun({ idempotencyKey: 'k1', idempotencyFingerprint: 'f1' });
    expect(await runs.insert(first)).toBe('recorded');
    expect(await runs.insert(newRun({ idempotencyKey: 'k1' }))).toBe('key_taken');
    expect(await runs.insert(newRun({ idempotencyKey: 'k1', organizationId: 'org-2' }))).toBe('recorded');
    const holder = await runs.findByIdempotencyKey('org-1', 'k1', 24);
    expect({ id: holder?.run.run.id, fingerprint: holder?.fingerprint }).toEqual({
      id: first.id,
      fingerprint: 'f1',
    });

    await setRun(first.id, { created_at: ago('25 hours') });
    expect(await runs.findByIdempotencyKey('org-1', 'k1', 24)).toBeNull();
    expect(await runs.insert(newRun({ idempotencyKey: 'k1' }))).toBe('recorded');
  });

  it('writes many runs in one statement as it writes each: taken keys, terminated workflows, gates and the share', async () => {
    const organizationId = 'org-many';
    const ofMany = (overrides: Partial<NewRun>) => newRun({ organizationId, ...overrides });
    const waiting = ofMany({ idempotencyKey: 'many-a' });
    expect(await runs.insert(waiting)).toBe('recorded');
    await db
      .insertInto('runner.terminated_workflows')
      .values({ organization_id: organizationId, workflow_id: 'wf-gone' })
      .execute();
    const gated = { ...UNGATED, gate: 'concurrency' as const, concurrencyKey: '', concurrencyLimit: 5 };
    const [first, second, atGate, keyTaken, ofGone, pastShare] = [
      ofMany({ idempotencyKey: 'many-b' }),
      ofMany({ idempotencyKey: 'many-c', workflowId: 'wf-2' }),
      ofMany({ idempotencyKey: 'many-d', flow: gated }),
      ofMany({ idempotencyKey: 'many-a' }),
      ofMany({ idempotencyKey: 'many-e', workflowId: 'wf-gone' }),
      ofMany({ idempotencyKey: 'many-f' }),
    ];
    // A share of 3 with one run waiting: two more may wait in the queue; the gated run is not one.
    const outcomes = await runs.insertMany(organizationId, 3, [
      first,
      second,
      atGate,
      keyTaken,
      ofGone,
      pastShare,
    ]);
    expect(Object.fromEntries([...outcomes].map(([id, outcome]) => [id, outcome]))).toEqual({
      [first.id]: 'recorded',
      [second.id]: 'recorded',
      [atGate.id]: 'held',
      [keyTaken.id]: 'key_taken',
      [ofGone.id]: 'workflow_deleted',
      [pastShare.id]: 'held',
    });
    expect(await runs.heldByOf(pastShare.id)).toBe('share');
    const written = await runs.find(organizationId, first.id);
    expect(written?.run).toMatchObject({
      status: 'queued',
      diagram: first.diagram,
      principal: first.principal,
    });
    expect(written?.steps).toEqual([expect.objectContaining({ nodeId: 't', status: 'done', position: 0 })]);
    expect(await runs.find(organizationId, keyTaken.id)).toBeNull();
    const holders = await runs.idempotencyKeyHolders(organizationId, ['many-a', 'many-c', 'many-e'], 24);
    expect(Object.fromEntries(holders)).toEqual({
      'many-a': { runId: waiting.id, workflowId: 'wf-1' },
      'many-c': { runId: second.id, workflowId: 'wf-2' },
    });
  });

  it('holds scheduled runs written early until their time, then lets each on to its gate, its share or the queue', async () => {
    const organizationId = 'org-early';
    const later = new Date(Date.now() + 3_600_000);
    const early = (flow: Partial<NewRun['flow']>) =>
      newRun({ organizationId, flow: { ...UNGATED, gate: 'schedule', releaseAt: later, ...flow } });
    const toShare = early({ share: 1 });
    const toQueue = early({ share: null });
    const toConcurrency = early({ share: 1, concurrencyKey: 'k', concurrencyLimit: 1 });
    const outcomes = await runs.insertMany(organizationId, 1, [toShare, toQueue, toConcurrency]);
    expect([...outcomes.values()]).toEqual(['held', 'held', 'held']);
    for (const run of [toShare, toQueue, toConcurrency]) expect(await runs.heldByOf(run.id)).toBe('schedule');
    expect(await control.releaseScheduled(10)).toEqual({ released: 0, jobs: [] });

    for (const run of [toShare, toQueue, toConcurrency])
      await setRun(run.id, { release_at: ago('1 second') });
    expect(await control.nextWakeInMs()).toBeLessThanOrEqual(0);
    const first = await control.releaseScheduled(2);
    const second = await control.releaseScheduled(2);
    expect([first.released, second.released]).toEqual([2, 1]);
    // Only the run no gate or share holds goes straight to the queue, with its job.
    expect([...first.jobs, ...second.jobs]).toEqual([
      { runId: toQueue.id, dispatch: 1, traceParent: null, woken: false },
    ]);
    expect(await runs.heldByOf(toQueue.id)).toBeNull();
    // The concurrency gate was looked at in the release's transaction: its one slot was free.
    expect(await runs.heldByOf(toConcurrency.id)).toBeNull();
    // Two of the organization's runs wait in the queue, past its share of one: the third waits for it.
    await control.openDueGates(10);
    expect(await runs.heldByOf(toShare.id)).toBe('share');
    expect(await control.releaseScheduled(10)).toEqual({ released: 0, jobs: [] });
    // One leaves the queue: the run held for the share takes its place.
    expect(await runs.claim(toQueue.id, LEASE_MS)).not.toBeNull();
    expect(await runs.heldByOf(toShare.id)).toBeNull();
  });

  it('records a run started by its runner, settled or held, in one statement', async () => {
    const done = newRun({ idempotencyKey: 'started-1' });
    const steps = [
      triggerStepOf(done),
      step('c'),
      step('d', { position: 2, status: 'skipped', output: null }),
    ];
    expect(await runs.insertStarted(done, LEASE_MS, steps, { status: 'complete', reply: 'true' })).toBe(
      'recorded',
    );
    const found = await runs.find('org-1', done.id);
    expect(found?.run).toMatchObject({ status: 'complete', reply: 'true', leaseToken: 1, claims: 1 });
    expect(found?.run.createdAt).toEqual(done.createdAt);
    expect(found?.steps.map((one) => [one.nodeId, one.status])).toEqual([
      ['t', 'done'],
      ['c', 'done'],
      ['d', 'skipped'],
    ]);
    // The key is taken: nothing of the second run is written.
    const again = newRun({ idempotencyKey: 'started-1' });
    expect(await runs.insertStarted(again, LEASE_MS, [triggerStepOf(again)])).toBe('key_taken');
    expect(await runs.find('org-1', again.id)).toBeNull();

    // Held: the runner goes on with checkpoints under token 1; nobody else can claim it.
    const held = newRun();
    expect(
      await runs.insertStarted(held, LEASE_MS, [
        triggerStepOf(held),
        step('db', { status: 'running', output: null }),
      ]),
    ).toBe('recorded');
    expect(await runs.claim(held.id, LEASE_MS)).toBeNull();
    expect(await runs.checkpoint(held.id, 1, LEASE_MS, [step('db')], { status: 'complete', reply: '' })).toBe(
      'complete',
    );
  });

  it('gives a run to one holder at a time and refuses the checkpoints of an old holder', async () => {
    const run = newRun();
    await runs.insert(run);
    const first = await runs.claim(run.id, LEASE_MS);
    expect(first?.run).toMatchObject({ status: 'running', leaseToken: 1, claims: 1 });
    expect(await runs.claim(run.id, LEASE_MS)).toBeNull();
    expect((await runs.holdOf(run.id))?.leaseLeftMs).toBeGreaterThan(50_000);

    expect(await runs.checkpoint(run.id, 1, LEASE_MS, [step('c')])).toBe('running');
    expect(await runs.checkpoint(run.id, 7, LEASE_MS, [step('d')])).toBeNull();

    // The holder went silent: once its lease has run out the run can be taken over.
    await setRun(run.id, { lease_expires_at: ago('1 second') });
    const second = await runs.claim(run.id, LEASE_MS);
    expect(second?.run).toMatchObject({ leaseToken: 2, claims: 2 });
    expect(second?.steps.map((one) => [one.nodeId, one.status, one.route])).toEqual([
      ['t', 'done', null],
      ['c', 'done', 'true'],
    ]);

    // The old holder's late result is dropped; the new holder settles the run.
    expect(
      await runs.checkpoint(run.id, 1, LEASE_MS, [step('late')], { status: 'errored', error: 'x' }),
    ).toBeNull();
    expect(await runs.renewLease(run.id, 1, LEASE_MS)).toBeNull();
    expect(await runs.renewLease(run.id, 2, LEASE_MS)).toBe('running');
    expect(
      await runs.checkpoint(run.id, 2, LEASE_MS, [step('d', { position: 2 })], {
        status: 'complete',
        reply: 'ok',
      }),
    ).toBe('complete');
    const done = await runs.find('org-1', run.id);
    expect(done?.run).toMatchObject({ status: 'complete', reply: 'ok', error: null });
    expect(done?.steps.map((one) => one.nodeId)).toEqual(['t', 'c', 'd']);
    // Settled: not claimable, and nothing more is written.
    expect(await runs.claim(run.id, LEASE_MS)).toBeNull();
    expect(await runs.checkpoint(run.id, 2, LEASE_MS, [step('e')])).toBeNull();
  });

  it('records a waiting step with its attempt, state and wake time', async () => {
    const run = newRun();
    await runs.insert(run);
    await runs.claim(run.id, LEASE_MS);
    const startedAt = new Date('2025-01-01T00:00:00.000Z');
    const wakeAt = new Date(Date.now() + 60_000);
    await runs.checkpoint(
      run.id,
      1,
      LEASE_MS,
      [
        step('s', {
          status: 'waiting',
          attempt: 2,
          error: 'boom',
          output: null,
          startedAt,
          wakeAt,
          state: { until: 'x' },
        }),
      ],
      { status: 'waiting', wakeAt },
    );
    const waiting = await runs.find('org-1', run.id);
    expect(waiting?.run.status).toBe('waiting');
    expect(waiting?.steps[1]).toMatchObject({
      status: 'waiting',
      attempt: 2,
      error: 'boom',
      state: { until: 'x' },
      wakeAt,
    });
    const row = await db
      .selectFrom('runner.runs')
      .select(['wake_at', 'lease_expires_at'])
      .where('id', '=', run.id)
      .executeTakeFirst();
    expect(row).toEqual({ wake_at: wakeAt, lease_expires_at: null });
  });

  it('sweeps due waits, lost jobs and orphaned runs back to the queue, each once', async () => {
    const waiting = newRun();
    const lost = newRun();
    const orphaned = newRun();
    const fresh = newRun();
    for (const run of [waiting, lost, orphaned, fresh]) await runs.insert(run);
    await setRun(waiting.id, { status: 'waiting', wake_at: ago('1 second') });
    await setRun(lost.id, { dispatched_at: ago('1 minute') });
    await runs.claim(orphaned.id, LEASE_MS);
    await setRun(orphaned.id, { lease_expires_at: ago('2 minutes'), dispatched_at: null });

    // Two sweepers at once: SKIP LOCKED splits the rows, and a moved row is no longer due.
    const [a, b] = await Promise.all([
      control.sweep(100, 30_000, 60_000),
      control.sweep(100, 30_000, 60_000),
    ]);
    const moved = [...a, ...b].filter((job) =>
      [waiting.id, lost.id, orphaned.id, fresh.id].includes(job.runId),
    );
    expect(moved.map((job) => job.runId).sort()).toEqual([waiting.id, lost.id, orphaned.id].sort());
    expect(moved.every((job) => job.dispatch === 1)).toBe(true);
    // Only the waiting run changed status, so only it is announced as changed.
    expect(moved.filter((job) => job.woken).map((job) => job.runId)).toEqual([waiting.id]);
    expect((await runs.find('org-1', waiting.id))?.run.status).toBe('queued');
    expect((await runs.find('org-1', orphaned.id))?.run.status).toBe('running');
    expect(await control.sweep(100, 30_000, 60_000)).toEqual([]);
    // The woken run is claimable at once; the orphan is, since its lease ran out.
    expect(await runs.claim(waiting.id, LEASE_MS)).not.toBeNull();
    expect(await runs.claim(orphaned.id, LEASE_MS)).not.toBeNull();
  });

  it('looks for no lost job while the queue has a backlog, and still wakes what is due', async () => {
    const waiting = newRun();
    const queued = newRun();
    for (const run of [waiting, queued]) await runs.insert(run);
    await setRun(waiting.id, { status: 'waiting', wake_at: ago('1 second') });
    await setRun(queued.id, { dispatched_at: ago('1 minute') });

    const ours = (jobs: Array<{ runId: string }>) =>
      jobs.map((job) => job.runId).filter((id) => id === waiting.id || id === queued.id);
    expect(ours(await control.sweep(100, null, 60_000))).toEqual([waiting.id]);
    // Once the line is through, the run still queued is taken for lost and published again.
    expect(ours(await control.sweep(100, 30_000, 60_000))).toEqual([queued.id]);
  });

  it('terminates the unfinished runs of a workflow and fences their holders', async () => {
    const running = newRun({ workflowId: 'wf-gone' });
    const queued = newRun({ workflowId: 'wf-gone' });
    const finished = newRun({ workflowId: 'wf-gone' });
    const elsewhere = newRun({ workflowId: 'wf-gone', organizationId: 'org-2' });
    for (const run of [running, queued, finished, elsewhere]) await runs.insert(run);
    await runs.claim(running.id, LEASE_MS);
    await runs.checkpoint(running.id, 1, LEASE_MS, [step('slow', { status: 'running', output: null })]);
    await runs.claim(finished.id, LEASE_MS);
    await runs.checkpoint(finished.id, 1, LEASE_MS, [], { status: 'complete', reply: '' });

    const ended = await control.terminateForWorkflows('org-1', ['wf-gone', 'wf-other']);
    expect(ended.map((run) => run.id).sort()).toEqual([running.id, queued.id].sort());
    const terminated = await runs.find('org-1', running.id);
    expect(terminated?.run.status).toBe('terminated');
    expect(terminated?.steps[1]).toMatchObject({
      nodeId: 'slow',
      status: 'error',
      error: expect.stringMatching(/terminated/),
    });
    expect(
      await runs.checkpoint(running.id, 1, LEASE_MS, [step('after')], { status: 'complete', reply: '' }),
    ).toBeNull();
    expect(await runs.claim(queued.id, LEASE_MS)).toBeNull();
    expect((await runs.find('org-1', finished.id))?.run.status).toBe('complete');
    expect((await runs.find('org-2', elsewhere.id))?.run.status).toBe('queued');

    // The workflow is remembered: no run of it is recorded any more, in another organization it is.
    const late = newRun({ workflowId: 'wf-gone' });
    expect(await runs.insert(late)).toBe('workflow_deleted');
    expect(await runs.insertStarted(late, LEASE_MS, [triggerStepOf(late)])).toBe('workflow_deleted');
    expect(await runs.find('org-1', late.id)).toBeNull();
    expect(await runs.insert(newRun({ workflowId: 'wf-gone', organizationId: 'org-2' }))).toBe('recorded');
    expect(await control.terminateForWorkflows('org-1', ['wf-gone'])).toEqual([]);
  });

  describe('a run recorded while its workflow is being terminated', () => {
    /** The other side of the race, in a transaction of its own on a connection of its own. */
    let other: ControlledTransaction<DB>;

    beforeEach(async () => {
      other = await db.startTransaction().execute();
    });

    afterEach(async () => {
      if (!other.isCommitted) await other.rollback().execute();
    });

    /** Resolves once some session waits for an advisory lock. */
    async function someoneWaitsForTheLock(): Promise<void> {
      for (let attempt = 0; attempt < 200; attempt += 1) {
        const { waiting } = await db
          .withTables<{ pg_locks: { locktype: string; granted: boolean } }>()
          .selectFrom('pg_locks')
          .select(sql<number>`count(*)::int`.as('waiting'))
          .where('locktype', '=', 'advisory')
          .where('granted', '=', false)
          .executeTakeFirstOrThrow();
        if (waiting > 0) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error('nobody waited for the workflow lock');
    }

    it('is refused when the termination commits while the insert waits', async () => {
      // The termination's side, by hand: the lock taken, the workflow not yet remembered.
      await other
        .selectNoFrom(sql`pg_advisory_xact_lock(hashtext('workflow-runs:wf-race-1'))`.as('locked'))
        .execute();
      const run = newRun({ workflowId: 'wf-race-1' });
      const inserting = runs.insert(run);
      await someoneWaitsForTheLock();
      await other
        .insertInto('runner.terminated_workflows')
        .values({ organization_id: 'org-1', workflow_id: 'wf-race-1' })
        .execute();
      await other.commit().execute();
      // The look-up ran after the lock was granted: a look-up in the insert's own snapshot, taken
      // before the termination committed, would have let the run in.
      expect(await inserting).toBe('workflow_deleted');
      expect(await runs.find('org-1', run.id)).toBeNull();
    });

    it('is terminated when the insert commits while the termination waits', async () => {
      // The insert's side, by hand: the shared lock taken and the run written, not yet committed.
      const run = newRun({ workflowId: 'wf-race-2' });
      await other.selectNoFrom(sql`runner.workflow_takes_runs('org-1', 'wf-race-2')`.as('open')).execute();
      await other
        .insertInto('runner.runs')
        .values({
          id: run.id,
          organization_id: 'org-1',
          workflow_id: 'wf-race-2',
          workflow_name: 'Workflow',
          project_id: 'project-1',
          trigger: 'api',
          status: 'queued',
          principal: '{}',
          input: '',
          diagram: '{}',
          time_zone: 'UTC',
        })
        .execute();
      const terminating = control.terminateForWorkflows('org-1', ['wf-race-2']);
      await someoneWaitsForTheLock();
      await other.commit().execute();
      expect((await terminating).map((ended) => ended.id)).toEqual([run.id]);
      expect((await runs.find('org-1', run.id))?.run.status).toBe('terminated');
    });
  });

  it("lists an organization's newest runs, and the failed steps of its runs errored since a moment", async () => {
    const organizationId = 'org-dashboard';
    const at = (ms: number) => new Date(Date.parse('2026-11-23T00:00:00.000Z') + ms);
    const made = [];
    for (let index = 0; index < 3; index += 1) {
      const run = newRun({ organizationId, createdAt: at(index * 1_000), workflowName: `W${index}` });
      expect(await runs.insert(run)).toBe('recorded');
      made.push(run.id);
    }
    await runs.insert(newRun({ organizationId: 'org-elsewhere', createdAt: at(5_000) }));
    const since = at(60_000);
    // The first run errored just before the window opened; the second errored inside it, but its
    // step had failed before it opened (another branch went on); the third's step failed as it opened.
    for (const [runId, stepFailedAt, finishedAt] of [
      [made[0], at(59_999), at(59_999)],
      [made[1], at(59_999), at(70_000)],
      [made[2], since, at(70_000)],
    ] as const) {
      await setRun(runId, { status: 'errored', finished_at: finishedAt });
      await db
        .insertInto('runner.run_steps')
        .values({
          run_id: runId,
          node_id: 'bad',
          position: 1,
          status: 'error',
          via: [],
          error: 'boom',
          ms: 250,
          started_at: new Date(stepFailedAt.getTime() - 250),
        })
        .execute();
    }

    expect((await lists.recent(organizationId, 2)).map((run) => run.id)).toEqual([made[2], made[1]]);
    expect(await lists.recent(organizationId, 10)).toContainEqual({
      id: made[0],
      workflowId: 'wf-1',
      workflowName: 'W0',
      projectId: 'project-1',
      trigger: 'api',
      status: 'errored',
      createdAt: at(0),
    });
    expect(await lists.failures(organizationId, since, 20)).toEqual([
      { runId: made[2], workflowId: 'wf-1', workflowName: 'W2', step: 'bad', error: 'boom', at: since },
    ]);
    expect(await lists.failures('org-elsewhere', new Date(0), 20)).toEqual([]);
  });
});
