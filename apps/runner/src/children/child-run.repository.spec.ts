import { dataSourceOptions, kyselyOn, migrate, newId } from '#persistence';
import { scratchDatabase } from '#testing';
import type { Kysely } from 'kysely';
import { DataSource } from 'typeorm';

import { runnerDataSource } from '../runner.database.js';
import type { DB } from '../runner.tables.js';
import type { ChildPlace, NewRun } from '../runs/new-run.js';
import { RunControlRepository } from '../runs/run-control.repository.js';
import { RunListRepository } from '../runs/run-list.repository.js';
import { RunRepository } from '../runs/run.repository.js';
import { ChildRunRepository } from './child-run.repository.js';
import { CHILD_WAIT_FALLBACK_MAX_MS, CHILD_WAIT_FALLBACK_MS, childWaitUntil } from './child-runs.service.js';
import { UNGATED } from '../start/run-flow.js';

/** Child runs against a real Postgres database of their own: the claim, the order, the cascades. */
const database = scratchDatabase('fm_children_spec');

const LEASE_MS = 60_000;
const caller = { organizationId: 'org-1', userId: null, keyId: 'key-1', role: 'admin' as const };

function newRun(child?: Omit<ChildPlace, 'depth'>, overrides: Partial<NewRun> = {}): NewRun {
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
    principal: caller,
    input: '',
    diagram: { nodes: [{ id: 't', data: { type: 'trigger', properties: { kind: 'api' } } }], edges: [] },
    timeZone: 'UTC',
    idempotencyKey: null,
    idempotencyFingerprint: null,
    triggerOutput: { payload: '' },
    createdAt: new Date(),
    rerunOf: null,
    traceParent: null,
    errorOfRunId: null,
    flow: UNGATED,
    ...(child === undefined ? {} : { child: { ...child, depth: 1 } }),
    ...overrides,
  };
}

describe('child runs', () => {
  let dataSource: DataSource;
  let db: Kysely<DB>;
  let runs: RunRepository;
  let children: ChildRunRepository;
  let control: RunControlRepository;
  let lists: RunListRepository;

  beforeAll(async () => {
    await database.create();
    await migrate(runnerDataSource(database.url));
    dataSource = new DataSource(dataSourceOptions(runnerDataSource(database.url, 4)));
    await dataSource.initialize();
    db = kyselyOn<DB>(dataSource);
    runs = new RunRepository(db);
    children = new ChildRunRepository(db);
    control = new RunControlRepository(db);
    lists = new RunListRepository(db);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database.drop();
  });

  /** A parent and, under its step `loop`, iterations written out of order. */
  async function parentWithIterations(count: number) {
    const parent = newRun();
    await runs.insert(parent);
    const written: string[] = [];
    for (const iteration of [...Array(count).keys()].reverse()) {
      const child = newRun({
        parentRunId: parent.id,
        parentNodeId: 'loop',
        childKey: `loop#${iteration}`,
        iteration,
      });
      expect(await runs.insert(child)).toBe('recorded');
      written[iteration] = child.id;
    }
    return { parent, written };
  }

  it('claims a child once per key: a second start with the key writes nothing', async () => {
    const parent = newRun();
    await runs.insert(parent);
    const place = { parentRunId: parent.id, parentNodeId: 'call', childKey: 'call:1', iteration: null };
    const first = newRun(place);
    expect(await runs.insert(first)).toBe('recorded');
    expect(await runs.insert(newRun(place))).toBe('key_taken');
    expect(await children.byKey(parent.id, 'call:1')).toMatchObject({ id: first.id, status: 'queued' });
    // The next attempt of the step is a claim of its own.
    expect(await runs.insert(newRun({ ...place, childKey: 'call:2' }))).toBe('recorded');
    const found = await runs.find('org-1', first.id);
    expect(found?.run).toMatchObject({
      parentRunId: parent.id,
      parentNodeId: 'call',
      iteration: null,
      depth: 1,
    });
    expect(await children.byId(newId(), first.id)).toBeNull();
  });

  it("reads a step's iterations in order, a window at a time, and pages them by the last id", async () => {
    const { parent, written } = await parentWithIterations(5);
    expect((await children.ofStep(parent.id, 'loop')).map((child) => child.id)).toEqual(written);
    expect(
      (await children.ofStep(parent.id, 'loop', { fromIteration: 2, limit: 2 })).map((c) => c.iteration),
    ).toEqual([2, 3]);

    const first = await children.page('org-1', parent.id, {}, { limit: 3 });
    expect(first?.data.map((child) => child.iteration)).toEqual([0, 1, 2]);
    const second = await children.page('org-1', parent.id, {}, { limit: 3, cursor: first!.nextCursor! });
    expect(second).toEqual({
      data: [expect.objectContaining({ iteration: 3 }), expect.objectContaining({ iteration: 4 })],
      nextCursor: null,
    });
    expect(await children.page('org-2', parent.id, {}, {})).toBeNull();
    expect((await children.page('org-1', parent.id, { nodeId: 'other' }, {}))?.data).toEqual([]);
    expect((await children.page('org-1', parent.id, { statuses: ['complete'] }, {}))?.data).toEqual([]);
    expect((await children.page('org-1', parent.id, { statuses: ['queued'] }, {}))?.data).toHaveLength(5);

    // Iterations are not among the organization's runs; their parent is.
    const listed = await lists.search('org-1', {}, { limit: 100 });
    const ids = listed.data.map((run) => run.id);
    expect(ids).toContain(parent.id);
    for (const id of written) expect(ids).not.toContain(id);
    expect((await lists.recent('org-1', 100)).map((run) => run.id)).not.toContain(written[0]);
  });

  it('cancels, pauses and resumes the unfinished descendants of a run, two levels down', async () => {
    const parent = newRun();
    await runs.insert(parent);
    const child = newRun({
      parentRunId: parent.id,
      parentNodeId: 'call',
      childKey: 'call:1',
      iteration: null,
    });
    await runs.insert(child);
    const grandchild = newRun({
      parentRunId: child.id,
      parentNodeId: 'call',
      childKey: 'call:1',
      iteration: null,
    });
    await runs.insert(grandchild);
    const finished = newRun({
      parentRunId: parent.id,
      parentNodeId: 'call',
      childKey: 'call:2',
      iteration: null,
    });
    await runs.insert(finished);
    await runs.claim(finished.id, LEASE_MS);
    await runs.checkpoint(finished.id, 1, LEASE_MS, [], { status: 'complete', reply: '' });
    // The child is held by a runner: it is asked to pause, not paused.
    await runs.claim(child.id, LEASE_MS);

    const paused = await control.pause('org-1', parent.id, caller);
    expect(paused.after).toBe('paused');
    expect(paused.descendants.map(({ runId, status }) => [runId, status]).sort()).toEqual(
      [
        [child.id, 'waitingForPause'],
        [grandchild.id, 'paused'],
      ].sort(),
    );
    expect(await runs.checkpoint(child.id, 1, LEASE_MS, [], { status: 'paused', wakeAt: null })).toBe(
      'paused',
    );

    const resumed = await control.resume('org-1', parent.id, caller);
    expect(resumed.descendants.map(({ runId, job }) => [runId, job?.runId]).sort()).toEqual(
      [
        [child.id, child.id],
        [grandchild.id, grandchild.id],
      ].sort(),
    );

    const cancelled = await control.cancel('org-1', parent.id, 'Cancelled by API key key-1.', false, caller);
    expect(cancelled.descendants.map(({ runId }) => runId).sort()).toEqual([child.id, grandchild.id].sort());
    for (const id of [child.id, grandchild.id]) {
      expect((await runs.find('org-1', id))?.run).toMatchObject({
        status: 'terminated',
        error: `Run ${parent.id}, which this run was started under, was cancelled. Cancelled by API key key-1.`,
      });
    }
    expect((await runs.find('org-1', finished.id))?.run.status).toBe('complete');
    // A child's own cancel names its parent, for the wake of the parent's step.
    const other = newRun({
      parentRunId: parent.id,
      parentNodeId: 'call',
      childKey: 'call:3',
      iteration: null,
    });
    await runs.insert(other);
    expect((await control.cancel('org-1', other.id, 'x', false, caller)).parent).toEqual({
      runId: parent.id,
      nodeId: 'call',
    });
  });

  it("terminates the runs a deleted workflow's runs started, of any workflow", async () => {
    const parent = newRun(undefined, { workflowId: 'wf-deleted' });
    await runs.insert(parent);
    const child = newRun(
      { parentRunId: parent.id, parentNodeId: 'call', childKey: 'call:1', iteration: null },
      { workflowId: 'wf-kept' },
    );
    await runs.insert(child);
    const terminated = await control.terminateForWorkflows('org-1', ['wf-deleted']);
    expect(terminated).toEqual([
      { id: parent.id, parentRunId: null, parentNodeId: null },
      { id: child.id, parentRunId: null, parentNodeId: null },
    ]);
    expect((await runs.find('org-1', child.id))?.run).toMatchObject({
      status: 'terminated',
      error: 'The run it was started under was terminated because its workflow was deleted.',
    });
    // A run of the kept workflow that nothing started goes on.
    const unrelated = newRun(undefined, { workflowId: 'wf-kept' });
    await runs.insert(unrelated);
    expect(await control.terminateForWorkflows('org-1', ['wf-deleted'])).toEqual([]);
    expect((await runs.find('org-1', unrelated.id))?.run.status).toBe('queued');
  });

  it("wakes a parent's step once its holder let go, and answers a step that ended as nothing to wake", async () => {
    const parent = newRun();
    await runs.insert(parent);
    await runs.claim(parent.id, LEASE_MS);
    const at = new Date();
    const step = (nodeId: string, status: 'running' | 'waiting' | 'done', position: number) => ({
      nodeId,
      position,
      status,
      via: ['e'],
      input: null,
      output: null,
      error: null,
      ms: null,
      startedAt: at,
      attempt: 1,
      route: null,
      state: null,
      wakeAt: status === 'waiting' ? new Date(at.getTime() + 30_000) : null,
      compensation: false,
      carriedFrom: null,
      payloadTrimmedAt: null,
    });
    await runs.checkpoint(parent.id, 1, LEASE_MS, [step('call', 'running', 1), step('fire', 'done', 2)]);
    // Held, its step still running: the holder's next write decides, so the wake is asked again.
    expect(await control.wakeStep('org-1', parent.id, 'call')).toEqual({ woken: false, job: null });
    // A step that did not wait for its child has nothing to wake, held or not.
    expect(await control.wakeStep('org-1', parent.id, 'fire')).toEqual({ woken: true, job: null });
    await runs.checkpoint(parent.id, 1, LEASE_MS, [step('call', 'waiting', 1)], {
      status: 'waiting',
      wakeAt: new Date(at.getTime() + 30_000),
    });
    const woken = await control.wakeStep('org-1', parent.id, 'call');
    expect(woken).toEqual({ woken: true, job: { runId: parent.id, dispatch: 1 } });
    expect((await runs.find('org-1', parent.id))?.run.status).toBe('queued');
  });

  it('looks at waiting children after 30 s, doubling up to 5 minutes', () => {
    const now = new Date(0);
    expect(childWaitUntil(now, 0).getTime()).toBe(CHILD_WAIT_FALLBACK_MS);
    expect(childWaitUntil(now, 1).getTime()).toBe(2 * CHILD_WAIT_FALLBACK_MS);
    expect(childWaitUntil(now, 50).getTime()).toBe(CHILD_WAIT_FALLBACK_MAX_MS);
  });
});
