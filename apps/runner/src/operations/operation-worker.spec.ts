import { DomainException } from '#common';
import type { CancelRunDto, Principal, WorkflowRunDto } from '#contracts';
import type { RpcClient } from '#nats';
import { dataSourceOptions, kyselyOn, migrate, newId } from '#persistence';
import { scratchDatabase } from '#testing';
import { type Kysely, sql } from 'kysely';
import pino from 'pino';
import { DataSource } from 'typeorm';

import { runnerDataSource } from '../runner.database.js';
import type { DB } from '../runner.tables.js';
import { OperationActions } from './operation-actions.service.js';
import { type OperationPace, OperationWorker } from './operation-worker.service.js';
import { OperationRepository } from './operation.repository.js';
import type { RunActions } from './run-actions.js';

/**
 * The bulk operations' worker against a real Postgres: pacing and fairness between organizations,
 * a holder that dies mid-batch, and runs the action refuses. The run actions are a stand-in that
 * records every call in Postgres (`ledger`) and cancels as run control does: an active run ends
 * `terminated`, a final one answers `run_not_active`.
 */
const database = scratchDatabase('fm_operations_spec');

const principalOf = (organizationId: string): Principal => ({
  organizationId,
  userId: null,
  keyId: 'key-1',
  role: 'admin',
});

class LedgerRunActions implements RunActions {
  /** Called before each call is recorded, and after it took effect; a test makes them hang or throw. */
  before: (runId: string) => Promise<void> = () => Promise.resolve();
  after: (runId: string) => Promise<void> = () => Promise.resolve();

  constructor(private readonly db: Kysely<DB>) {}

  async cancel(principal: Principal, id: string, body: CancelRunDto): Promise<WorkflowRunDto> {
    await this.before(id);
    await sql`INSERT INTO ledger (run_id, action) VALUES (${id}, 'cancel')`.execute(this.db);
    const { rows } = await sql<{ id: string }>`
      UPDATE runner.runs SET status = 'terminated', error = ${body.reason ?? null}
      WHERE id = ${id} AND organization_id = ${principal.organizationId}
        AND status IN ('queued', 'running', 'waiting', 'paused', 'waitingForPause')
      RETURNING id`.execute(this.db);
    if (rows.length === 0) throw new DomainException('run_not_active', `The run ${id} has ended.`);
    await this.after(id);
    return { id } as WorkflowRunDto;
  }

  async rerun(_principal: Principal, id: string): Promise<WorkflowRunDto> {
    await sql`INSERT INTO ledger (run_id, action) VALUES (${id}, 'rerun')`.execute(this.db);
    return { id: newId() } as WorkflowRunDto;
  }
}

describe('OperationWorker', () => {
  let dataSource: DataSource;
  let db: Kysely<DB>;
  let operations: OperationRepository;
  let ledger: LedgerRunActions;
  const logger = pino({ level: 'silent' });

  const worker = (pace: Partial<OperationPace> = {}) =>
    new OperationWorker(
      operations,
      new OperationActions(ledger, {} as RpcClient, operations),
      { tickMs: 1_000_000, batch: 5, perTick: 8, leaseMs: 30_000, maxAttempts: 3, ...pace },
      logger,
    );

  async function insertRuns(organizationId: string, count: number, status = 'running'): Promise<string[]> {
    const ids = Array.from({ length: count }, () => newId());
    await sql`
      INSERT INTO runner.runs (id, organization_id, workflow_id, workflow_name, project_id, trigger, status,
        principal, input, diagram, time_zone)
      SELECT id, ${organizationId}, 'wf-1', 'Workflow', 'project-1', 'api', ${status}, '{}'::jsonb, '', '{}'::json, 'UTC'
      FROM unnest(${ids}::uuid[]) AS id`.execute(db);
    return ids;
  }

  const accept = async (organizationId: string, workflowId = 'wf-1', action: 'cancel' | 'rerun' = 'cancel') =>
    (
      await operations.createForRuns(
        {
          id: newId(),
          organizationId,
          action,
          principal: principalOf(organizationId),
          workflowId: null,
          params: { reason: 'bulk' },
        },
        { workflowId },
        1000,
      )
    ).id;

  const read = async (organizationId: string, id: string) => (await operations.find(organizationId, id))!;

  const calls = async (): Promise<Map<string, number>> => {
    const { rows } = await sql<{ run_id: string; n: number }>`
      SELECT run_id, count(*)::int AS n FROM ledger GROUP BY run_id`.execute(db);
    return new Map(rows.map((row) => [row.run_id, row.n]));
  };

  beforeAll(async () => {
    await database.create();
    await migrate(runnerDataSource(database.url));
    dataSource = new DataSource(dataSourceOptions(runnerDataSource(database.url, 6)));
    await dataSource.initialize();
    db = kyselyOn<DB>(dataSource);
    await sql`CREATE TABLE ledger (run_id uuid NOT NULL, action text NOT NULL, at timestamptz NOT NULL DEFAULT now())`.execute(
      db,
    );
    operations = new OperationRepository(db);
  });

  beforeEach(async () => {
    ledger = new LedgerRunActions(db);
    await sql`TRUNCATE ledger, runner.operations CASCADE`.execute(db);
    await sql`DELETE FROM runner.runs`.execute(db);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database.drop();
  });

  it('acts on a fixed number of runs per tick, and serves another organization in the same tick', async () => {
    await insertRuns('org-big', 200);
    const big = await accept('org-big');
    await insertRuns('org-small', 10);
    const small = await accept('org-small');
    const one = worker({ batch: 5 });

    await one.tick();
    expect((await read('org-big', big)).operation.done).toBe(5);
    expect((await read('org-small', small)).operation.done).toBe(5);

    await one.tick();
    expect((await read('org-small', small)).operation).toMatchObject({ status: 'complete', done: 10 });
    expect((await read('org-big', big)).operation).toMatchObject({
      status: 'running',
      done: 10,
      matched: 200,
    });
  });

  it('gives each organization one operation a tick, however many it has, least recently served first', async () => {
    for (let i = 0; i < 3; i++) {
      await insertRuns('org-many', 10);
      await accept('org-many');
    }
    await insertRuns('org-other', 10);
    const other = await accept('org-other');
    const one = worker({ batch: 5, perTick: 2 });

    await one.tick();
    await one.tick();
    // Two ticks of two operations: one of org-many's and org-other's, twice.
    expect((await read('org-other', other)).operation).toMatchObject({ status: 'complete', done: 10 });
    const { rows } = await sql<{ done: number }>`
      SELECT done FROM runner.operations WHERE organization_id = 'org-many' ORDER BY done DESC`.execute(db);
    expect(rows.reduce((sum, row) => sum + row.done, 0)).toBe(10);
  });

  it('resumes after its holder dies mid-batch and acts on no run twice', async () => {
    const runIds = await insertRuns('org-1', 30);
    const id = await accept('org-1');
    let calls_ = 0;
    let dead!: (error: Error) => void;
    ledger.after = () => {
      calls_ += 1;
      // The third run is cancelled, then its holder hangs before recording it, as if it had died.
      return calls_ === 3 ? new Promise<void>((_resolve, reject) => (dead = reject)) : Promise.resolve();
    };
    const first = worker({ leaseMs: 300 });
    const hung = first.tick();
    await waitUntil(async () => (await calls()).size === 3);

    // Two settled; the third cancelled but not recorded, two more begun and never called.
    const { rows: states } = await sql<{ state: string; n: number }>`
      SELECT state, count(*)::int AS n FROM runner.operation_targets WHERE operation_id = ${id}
      GROUP BY state ORDER BY state`.execute(db);
    expect(states).toEqual([
      { state: 'acting', n: 3 },
      { state: 'done', n: 2 },
      { state: 'pending', n: 25 },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    ledger.after = () => Promise.resolve();
    const second = worker({ leaseMs: 30_000 });
    while ((await read('org-1', id)).operation.status === 'running') await second.tick();

    // Its late answer is refused by the lease: nothing more is counted.
    dead(new Error('the holder died'));
    await hung;
    const { operation, failures } = await read('org-1', id);
    expect(operation).toMatchObject({ status: 'complete', matched: 30, done: 30, failed: 0 });
    expect(failures).toEqual([]);
    const acted = await calls();
    expect(acted.size).toBe(30);
    expect([...acted.values()].every((n) => n === 1)).toBe(true);
    expect([...acted.keys()].sort()).toEqual([...runIds].sort());
  });

  it("counts a run the action refuses as failed, with the action's code, and lists it", async () => {
    await insertRuns('org-1', 3);
    const [finished] = await insertRuns('org-1', 1, 'complete');
    const id = await accept('org-1');
    const one = worker();
    await one.tick();

    const { operation, failures } = await read('org-1', id);
    expect(operation).toMatchObject({ status: 'complete', matched: 4, done: 3, failed: 1 });
    expect(failures).toEqual([
      {
        targetId: finished,
        code: 'run_not_active',
        message: `The run ${finished} has ended.`,
        at: expect.any(Date),
      },
    ]);
  });

  it('tries a run again on a later tick when the action cannot be reached, then gives up', async () => {
    const [runId] = await insertRuns('org-1', 1);
    const id = await accept('org-1');
    ledger.before = () => Promise.reject(new DomainException('service_unavailable', 'nobody answers'));
    const one = worker({ maxAttempts: 3 });

    await one.tick();
    await one.tick();
    expect((await read('org-1', id)).operation).toMatchObject({ status: 'running', done: 0, failed: 0 });
    await one.tick();
    const { operation, failures } = await read('org-1', id);
    expect(operation).toMatchObject({ status: 'complete', failed: 1 });
    expect(failures[0]).toMatchObject({ targetId: runId, code: 'service_unavailable' });
    expect(failures[0]!.message).toMatch(/^Gave up after 3 tries/);
  });

  it('finds the rerun an interrupted holder made rather than rerunning again', async () => {
    const [runId] = await insertRuns('org-1', 1, 'errored');
    const id = await accept('org-1', 'wf-1', 'rerun');
    const [held] = await operations.claim(1, 1);
    await operations.begin(held!, 5);
    // The holder's rerun was written, then it died before recording it.
    const rerunId = newId();
    await sql`
      INSERT INTO runner.runs (id, organization_id, workflow_id, workflow_name, project_id, trigger, status,
        principal, input, diagram, time_zone, rerun_of)
      VALUES (${rerunId}, 'org-1', 'wf-1', 'Workflow', 'project-1', 'api', 'queued', '{}'::jsonb, '', '{}'::json, 'UTC', ${runId})`.execute(
      db,
    );
    await new Promise((resolve) => setTimeout(resolve, 20));

    await worker().tick();
    expect((await read('org-1', id)).operation).toMatchObject({ status: 'complete', done: 1 });
    expect(await calls()).toEqual(new Map());
    const { rows } = await sql<{ result_id: string }>`
      SELECT result_id FROM runner.operation_targets WHERE operation_id = ${id}`.execute(db);
    expect(rows).toEqual([{ result_id: rerunId }]);
  });
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
