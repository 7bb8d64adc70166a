import { dataSourceOptions, kyselyOn, migrate, newId } from '#persistence';
import { scratchDatabase } from '#testing';
import type { Kysely } from 'kysely';
import { DataSource } from 'typeorm';

import { stepRecord } from '../engine/run-state.js';
import { RunnerConfig } from '../runner.config.js';
import { runnerDataSource } from '../runner.database.js';
import type { DB } from '../runner.tables.js';
import type { NewRun } from '../runs/new-run.js';
import { RunRepository } from '../runs/run.repository.js';
import { InheritedScopes } from './inherited-scopes.service.js';
import { LoopIterations } from './loop-iterations.repository.js';
import { UNGATED } from '../start/run-flow.js';

/** What a loop step reads of its iterations, and what iterations inherit, against a real Postgres. */
const database = scratchDatabase('fm_loops_spec');

const caller = { organizationId: 'org-1', userId: null, keyId: 'key-1', role: 'admin' as const };

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
    principal: caller,
    input: '{"who":"Ada"}',
    diagram: { nodes: [], edges: [] },
    timeZone: 'UTC',
    idempotencyKey: null,
    idempotencyFingerprint: null,
    triggerOutput: { payload: '{"who":"Ada"}' },
    createdAt: new Date(),
    rerunOf: null,
    traceParent: null,
    errorOfRunId: null,
    flow: UNGATED,
    ...overrides,
  };
}

/** An iteration of `loopId` under `parentRunId`, starting at the loop node with the item. */
const iteration = (parentRunId: string, loopId: string, index: number, item: string) =>
  newRun({
    triggerNodeId: loopId,
    input: item,
    triggerOutput: { item, index: String(index) },
    child: { parentRunId, parentNodeId: loopId, childKey: `${loopId}#${index}`, iteration: index, depth: 1 },
  });

describe('loops against Postgres', () => {
  let dataSource: DataSource;
  let db: Kysely<DB>;
  let runs: RunRepository;
  let iterations: LoopIterations;

  beforeAll(async () => {
    await database.create();
    await migrate(runnerDataSource(database.url));
    dataSource = new DataSource(dataSourceOptions(runnerDataSource(database.url, 4)));
    await dataSource.initialize();
    db = kyselyOn<DB>(dataSource);
    runs = new RunRepository(db);
    iterations = new LoopIterations(db);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database.drop();
  });

  const setStatus = (id: string, status: 'complete' | 'errored' | 'running', error: string | null = null) =>
    db.updateTable('runner.runs').set({ status, error }).where('id', '=', id).execute();

  it('reads the iterations from an index on: started, unfinished, the first unfinished and failed', async () => {
    const parent = newRun();
    await runs.insert(parent);
    const ids: string[] = [];
    for (let index = 0; index < 6; index += 1) {
      const run = iteration(parent.id, 'each', index, String(index));
      ids.push(run.id);
      expect(await runs.insert(run)).toBe('recorded');
    }
    // A second start of the same iteration finds its key taken.
    expect(await runs.insert(iteration(parent.id, 'each', 2, '2'))).toBe('key_taken');
    await setStatus(ids[0]!, 'complete');
    await setStatus(ids[1]!, 'complete');
    await setStatus(ids[3]!, 'errored', 'boom');
    await setStatus(ids[4]!, 'complete');
    expect(await iterations.window(parent.id, 'each', 0)).toEqual({
      startedUpTo: 6,
      unfinished: 2,
      finished: 4,
      firstUnfinished: 2,
      firstFailure: { iteration: 3, runId: ids[3], error: 'boom' },
    });
    // From 2 on: what is below is known final and not read again.
    expect(await iterations.window(parent.id, 'each', 2)).toMatchObject({ unfinished: 2, finished: 2 });
    // Past every iteration started: none there, nothing started beyond.
    expect(await iterations.window(parent.id, 'each', 6)).toEqual({
      startedUpTo: 6,
      unfinished: 0,
      finished: 0,
      firstUnfinished: null,
      firstFailure: null,
    });
    // Another loop of the run is another window.
    expect(await iterations.window(parent.id, 'other', 0)).toMatchObject({ startedUpTo: 0, unfinished: 0 });
  });

  it('terminates the unfinished iterations of one loop, and what runs under them, or of every loop', async () => {
    const parent = newRun();
    await runs.insert(parent);
    const [done, going, queued] = [0, 1, 2].map((index) => iteration(parent.id, 'each', index, 'x'));
    const other = iteration(parent.id, 'other', 0, 'y');
    for (const run of [done!, going!, queued!, other]) await runs.insert(run);
    const nested = iteration(going!.id, 'inner', 0, 'z');
    await runs.insert(nested);
    await setStatus(done!.id, 'complete');
    await setStatus(going!.id, 'running');

    const stopped = await iterations.terminateUnfinished('org-1', parent.id, 'each', 'stop');
    expect(new Set(stopped)).toEqual(new Set([going!.id, queued!.id, nested.id]));
    const rows = await db
      .selectFrom('runner.runs')
      .select(['id', 'status', 'error'])
      .where('id', 'in', [done!.id, going!.id, nested.id, other.id])
      .execute();
    expect(Object.fromEntries(rows.map((row) => [row.id, [row.status, row.error]]))).toEqual({
      [done!.id]: ['complete', null],
      [going!.id]: ['terminated', 'stop'],
      [nested.id]: ['terminated', 'stop'],
      [other.id]: ['queued', null],
    });
    // Another organization's run is not touched; then every loop of the run.
    expect(await iterations.terminateUnfinished('org-2', parent.id, null, 'ended')).toEqual([]);
    expect(await iterations.terminateUnfinished('org-1', parent.id, null, 'ended')).toEqual([other.id]);
  });

  it('gives an iteration the steps of the runs around it, read once per loop, nearest first', async () => {
    const top = newRun();
    await runs.insert(top, [
      stepRecord({
        nodeId: 'query',
        position: 1,
        status: 'done',
        startedAt: new Date(),
        output: { rows: '[1]' },
      }),
      stepRecord({
        nodeId: 'shadowed',
        position: 2,
        status: 'done',
        startedAt: new Date(),
        output: { v: 'top' },
      }),
      stepRecord({ nodeId: 'failed', position: 3, status: 'error', startedAt: new Date(), error: 'x' }),
    ]);
    const outer = iteration(top.id, 'outer', 1, '"b"');
    await runs.insert(outer, [
      stepRecord({
        nodeId: 'shadowed',
        position: 1,
        status: 'done',
        startedAt: new Date(),
        output: { v: 'outer' },
      }),
    ]);
    const inner = iteration(outer.id, 'inner', 0, '7');
    await runs.insert(inner);
    const config = Object.assign(new RunnerConfig(), { LOOP_SCOPE_CACHE_BYTES: 1024 * 1024 });
    const scopes = new InheritedScopes(db, config);

    const record = { parentRunId: outer.id, parentNodeId: 'inner', iteration: 0 };
    const scope = (await scopes.of(record))!;
    expect(scope.input).toBe(top.input);
    expect(scope.outputs.get('query')).toEqual({ rows: '[1]' });
    expect(scope.outputs.get('shadowed')).toEqual({ v: 'outer' });
    expect(scope.outputs.get('outer')).toEqual({ item: '"b"', index: '1' });
    expect(scope.outputs.has('failed')).toBe(false);
    // Read once: a step written afterwards is not seen by later iterations of the same loop…
    await db
      .insertInto('runner.run_steps')
      .values({
        run_id: outer.id,
        node_id: 'late',
        position: 9,
        status: 'done',
        started_at: new Date(),
        output: '{"v":"late"}',
      })
      .execute();
    expect((await scopes.of(record))!.outputs.has('late')).toBe(false);
    // …and a run that is not an iteration inherits nothing.
    expect(await scopes.of({ parentRunId: top.id, parentNodeId: 'call', iteration: null })).toBeNull();
  });
});
