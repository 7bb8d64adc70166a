import type { HeldBy } from '../start/run-flow.js';
import { type AuditCaller, type AuditEvent, InjectKysely, preparedQuery } from '#persistence';
import { Injectable } from '@nestjs/common';
import { type Compilable, Kysely, sql } from 'kysely';

import {
  HELD_STATUSES,
  type RunRecord,
  type RunSettlement,
  type RunWithSteps,
  type StepRecord,
} from '../engine/run-state.js';
import { audit } from '../audit/runner-audit.js';
import type { DB } from '../runner.tables.js';
import type { NewRun } from './new-run.js';
import { triggerStepOf } from './new-run.js';
import { heldOrSettled, newRunRow, toRunWithSteps, toStepJson } from './run.mapper.js';
import {
  checkpointStatement,
  claimStatement,
  findByKeyStatement,
  findStatement,
  type Hold,
  holdAfter,
  insertStartedStatement,
  insertStatement,
  QUEUED_COLUMNS,
  renewLeaseStatement,
  startedColumns,
  stepsJson,
} from './run.statements.js';

/** The run an idempotency key names, and the fingerprint of the request that made it. */
export interface KeyHolder {
  run: RunWithSteps;
  fingerprint: string | null;
}

/**
 * What writing a new run came to: written; not written because its idempotency key is already
 * taken; or not written because its workflow's runs were terminated (the workflow was deleted) after
 * the start read the workflow.
 */
export type RecordOutcome = 'recorded' | 'key_taken' | 'workflow_deleted';

/** What writing a queued run came to: as `RecordOutcome`, or written but held at a gate (no job yet). */
export type InsertOutcome = RecordOutcome | 'held';

/**
 * A run with its steps: writing it when it starts, taking it, its checkpoints and its lease, and
 * reading it. The hot path (start, claim, checkpoint) is one statement each, so a run costs a
 * handful of round trips however many steps it has. These statements, and the read of a run, run as
 * named prepared statements: Postgres plans each once per connection. Built by Kysely but unprepared
 * they cost more than the hand-written statements they replaced (a run recorded in one statement
 * +39%, a run read +25%); prepared they cost less (-12 to -16%, -18%; a queued run's claim and two
 * checkpoints -23%, a lease renewal -36%: medians of calls interleaved on one database). Each is
 * built once, here, and sent with new values (see `run.statements.ts` for what that saves).
 */
@Injectable()
export class RunRepository {
  private readonly insertRun;
  private readonly insertStartedRun;
  private readonly claimRun;
  private readonly checkpointRun;
  private readonly renewRunLease;
  private readonly findRun;
  private readonly findRunByKey;

  constructor(@InjectKysely() private readonly db: Kysely<DB>) {
    this.insertRun = insertStatement(db);
    this.insertStartedRun = perHold((hold) => insertStartedStatement(db, hold));
    this.claimRun = claimStatement(db);
    this.checkpointRun = perHold((hold) => checkpointStatement(db, hold));
    this.renewRunLease = renewLeaseStatement(db);
    this.findRun = findStatement(db);
    this.findRunByKey = findByKeyStatement(db);
  }

  /**
   * The run an idempotency key created in the last `ttlHours`, with its steps. An older holder of
   * the key gives it up in the same statement, so the key can start a new run.
   */
  async findByIdempotencyKey(
    organizationId: string,
    key: string,
    ttlHours: number,
  ): Promise<KeyHolder | null> {
    // Built once but planned on every call, not prepared: with a plan Postgres keeps per connection,
    // 10,000 keyed starts in a minute (tools/bench/timers-bench.ts) took 40 % longer to the last.
    const { rows } = await this.db.executeQuery(
      this.findRunByKey.bind({ organizationId, key, ttlHours }).compile(),
    );
    const [row] = rows;
    if (!row) return null;
    const { fingerprint, ...run } = row;
    return { run: toRunWithSteps(run), fingerprint };
  }

  /** Records a change whose own write is not a transaction this repository can join (a rerun). */
  async recordAudit(caller: AuditCaller, event: AuditEvent): Promise<void> {
    await audit.record(this.db, caller, event);
  }

  /**
   * Writes the run, `queued`, and its trigger step, `done` (with a rerun's carried-over steps), in
   * one statement: once it is `recorded` the run exists and its job will be executed (`queuedRunOf`
   * is what was written).
   */
  insert(run: NewRun, carried: readonly StepRecord[] = []): Promise<InsertOutcome> {
    return this.record(
      'runs.insert',
      this.insertRun.bind({
        ...newRunRow(run),
        ...QUEUED_COLUMNS,
        gate: run.flow.gate,
        share: run.flow.share,
        steps: stepsJson(run.id, [triggerStepOf(run), ...carried]),
      }),
    );
  }

  /**
   * The runs these idempotency keys of the organization started in the last `ttlHours`, by key; an
   * older holder of one of them gives it up in the same statement, as in `findByIdempotencyKey`.
   */
  async idempotencyKeyHolders(
    organizationId: string,
    keys: readonly string[],
    ttlHours: number,
  ): Promise<Map<string, { runId: string; workflowId: string }>> {
    if (keys.length === 0) return new Map();
    const keptSince = sql`now() - make_interval(hours => ${ttlHours}::integer)`;
    const { rows } = await sql<{ key: string; id: string; workflow_id: string }>`
      WITH released AS (
        UPDATE runner.runs SET idempotency_key = NULL
         WHERE organization_id = ${organizationId} AND idempotency_key = ANY(${keys}::text[])
           AND created_at < ${keptSince}
      )
      SELECT idempotency_key AS key, id, workflow_id FROM runner.runs
       WHERE organization_id = ${organizationId} AND idempotency_key = ANY(${keys}::text[])
         AND created_at >= ${keptSince}
    `.execute(this.db);
    return new Map(rows.map((row) => [row.key, { runId: row.id, workflowId: row.workflow_id }]));
  }

  /**
   * Writes many queued runs of one organization with their trigger steps, in one statement, as
   * `insert` writes each: a run of a workflow whose runs were terminated is not written, nor one
   * whose idempotency key is taken, and each run is held at its workflow's first gate or, past
   * `share` of the organization's runs waiting in the queue (those written before it in `runs`
   * counted), for its share. The workflows' locks (`workflow_takes_runs`) are taken in id order.
   */
  async insertMany(
    organizationId: string,
    share: number | null,
    runs: readonly NewRun[],
  ): Promise<Map<string, InsertOutcome>> {
    if (runs.length === 0) return new Map();
    const rows = runs.map((run) => ({
      ...newRunRow(run),
      principal: run.principal,
      diagram: run.diagram,
      ...QUEUED_COLUMNS,
      held_by: run.flow.gate,
    }));
    const columns = Object.keys(newRunRow(runs[0])).concat(Object.keys(QUEUED_COLUMNS));
    const list = sql.join(columns.map((column) => sql.id(column)));
    const steps = JSON.stringify(runs.map((run) => toStepJson(run.id, triggerStepOf(run))));
    const { rows: written } = await sql<{
      id: string;
      open: boolean;
      recorded: boolean;
      held_by: HeldBy | null;
    }>`
      WITH input AS MATERIALIZED (
        SELECT * FROM jsonb_populate_recordset(NULL::runner.runs, ${JSON.stringify(rows)}::jsonb)
          WITH ORDINALITY AS i
      ),
      takes AS MATERIALIZED (
        SELECT workflow_id, runner.workflow_takes_runs(${organizationId}, workflow_id) AS open
          FROM (SELECT DISTINCT workflow_id FROM input ORDER BY workflow_id) w
      ),
      waiting AS (
        SELECT count(*)::integer AS runs FROM (
          SELECT 1 FROM runner.runs
           WHERE organization_id = ${organizationId} AND status = 'queued' AND held_by IS NULL
           LIMIT coalesce(${share}::integer, 0)) q
      ),
      placed AS (
        SELECT i.*, CASE
                 WHEN i.held_by IS NOT NULL THEN i.held_by
                 WHEN ${share}::integer IS NOT NULL
                  AND (SELECT runs FROM waiting)
                      + count(*) FILTER (WHERE i.held_by IS NULL) OVER (ORDER BY i.ordinality)
                      > ${share}::integer
                 THEN 'share' END AS held
          FROM input i JOIN takes t USING (workflow_id)
         WHERE t.open
      ),
      run AS (
        INSERT INTO runner.runs (${list}, held_by, dispatched_at)
        SELECT ${list}, held, CASE WHEN held IS NULL THEN now() END FROM placed ORDER BY ordinality
        ON CONFLICT DO NOTHING
        RETURNING id, held_by
      ),
      written AS (
        INSERT INTO runner.run_steps
        SELECT s.* FROM jsonb_populate_recordset(NULL::runner.run_steps, ${steps}::jsonb) s
         WHERE s.run_id IN (SELECT id FROM run)
      )
      SELECT i.id, t.open, run.id IS NOT NULL AS recorded, run.held_by
        FROM input i JOIN takes t USING (workflow_id) LEFT JOIN run ON run.id = i.id
    `.execute(this.db);
    return new Map(
      written.map((row) => [
        row.id,
        !row.open
          ? 'workflow_deleted'
          : !row.recorded
            ? 'key_taken'
            : row.held_by === null
              ? 'recorded'
              : 'held',
      ]),
    );
  }

  /**
   * Writes a run this runner has already started executing, in one statement: the run row (held
   * by the writer under lease token 1, or settled when `settlement` is given) with every step
   * recorded so far. This is the run's first checkpoint, so a run whose steps have no effects
   * elsewhere is recorded, complete, in a single round trip. Unless `recorded`, nothing was written.
   */
  insertStarted(
    run: NewRun,
    leaseMs: number,
    steps: readonly StepRecord[],
    settlement?: RunSettlement,
  ): Promise<RecordOutcome> {
    const hold = holdAfter(settlement);
    // A started run is never held: its statement's `held` is NULL.
    return this.record(
      `runs.insertStarted.${hold}`,
      this.insertStartedRun[hold].bind({
        ...newRunRow(run),
        ...startedColumns(run, settlement, leaseMs),
        leaseMs,
        steps: stepsJson(run.id, steps),
      }),
    ) as Promise<RecordOutcome>;
  }

  /**
   * Inserts a run, with the columns of the write (`status` and the lease), and its steps, unless its
   * idempotency key is taken or its workflow no longer takes runs. The gate waits for any termination
   * of the workflow under way and says whether the workflow still takes runs (see the
   * `terminated_workflows` migration); the insert is an `INSERT … SELECT … FROM gate`, column by column.
   */
  private async record(
    statement: string,
    query: Compilable<{ open: boolean; recorded: boolean; heldBy: string | null }>,
  ): Promise<InsertOutcome> {
    const [{ open, recorded, heldBy }] = await preparedQuery(this.db, statement, query);
    if (!open) return 'workflow_deleted';
    if (!recorded) return 'key_taken';
    return heldBy === null ? 'recorded' : 'held';
  }

  /**
   * Takes the run for this runner: it must be `queued`, or `running` under a lease that has run out
   * (its runner died). The new lease token fences off whoever held it before. Answers the run with
   * its checkpoints, or null when it is not to be taken now.
   */
  async claim(runId: string, leaseMs: number): Promise<RunWithSteps | null> {
    const [row] = await preparedQuery(this.db, 'runs.claim', this.claimRun.bind({ runId, leaseMs }));
    return row ? toRunWithSteps(row) : null;
  }

  /** The gate a queued run waits at, if any (docs/flow-control.md). */
  async heldByOf(runId: string): Promise<HeldBy | null> {
    const row = await this.db
      .selectFrom('runner.runs')
      .select('held_by')
      .where('id', '=', runId)
      .executeTakeFirst();
    return row?.held_by ?? null;
  }

  /** Why a claim found nothing: the run's status and, when running, how long its lease has left. */
  async holdOf(runId: string): Promise<{ status: RunRecord['status']; leaseLeftMs: number | null } | null> {
    const row = await this.db
      .selectFrom('runner.runs')
      .select((eb) => [
        'status',
        sql<number | null>`(extract(epoch FROM ${eb.ref('lease_expires_at')} - now()) * 1000)::float8`.as(
          'leaseLeftMs',
        ),
      ])
      .where('id', '=', runId)
      .executeTakeFirst();
    return row ?? null;
  }

  /**
   * Records steps (and, with `settlement`, the run's outcome) for the holder of `leaseToken`, in one
   * statement, answering the run's status after it. Null when the run is no longer this holder's
   * (cancelled, terminated, or taken over after the lease ran out): then nothing is written, which is
   * how late results are dropped.
   */
  async checkpoint(
    runId: string,
    leaseToken: number,
    leaseMs: number,
    steps: readonly StepRecord[],
    settlement?: RunSettlement,
  ): Promise<RunRecord['status'] | null> {
    const hold = holdAfter(settlement);
    const query = this.checkpointRun[hold].bind({
      ...heldOrSettled(settlement, leaseMs),
      runId,
      leaseToken,
      leaseMs,
      steps: stepsJson(runId, steps),
    });
    const [row] = await preparedQuery(this.db, `runs.checkpoint.${hold}`, query);
    return row?.status ?? null;
  }

  /**
   * Keeps the holder's lease alive during a long step, answering the run's status (a holder learns
   * here that its run was asked to pause); null when it is no longer the holder's.
   */
  async renewLease(runId: string, leaseToken: number, leaseMs: number): Promise<RunRecord['status'] | null> {
    const query = this.renewRunLease.bind({ runId, leaseToken, leaseMs });
    const [row] = await preparedQuery(this.db, 'runs.renewLease', query);
    return row?.status ?? null;
  }

  /**
   * The holder's run failed and rolls back: `rollingBack`, with what failed it as its error and the
   * status it ends in once rolled back. False when it is no longer this holder's.
   */
  async beginRollback(
    runId: string,
    leaseToken: number,
    error: string,
    end: 'errored' | 'terminated',
  ): Promise<boolean> {
    const rows = await this.db
      .updateTable('runner.runs')
      // A rollback has its own allowance of claims: this holder's is its first.
      .set({ status: 'rollingBack', error, rollback_end: end, claims: 1 })
      .where('id', '=', runId)
      .where('lease_token', '=', leaseToken)
      .where('status', 'in', HELD_STATUSES)
      .returning('id')
      .execute();
    return rows.length > 0;
  }

  /** Hands a run back at once (shutdown), so the next runner need not wait for the lease to run out. */
  async releaseLease(runId: string, leaseToken: number): Promise<void> {
    await this.db
      .updateTable('runner.runs')
      .set({ lease_expires_at: sql<Date>`now() - interval '1 millisecond'` })
      .where('id', '=', runId)
      .where('lease_token', '=', leaseToken)
      .where('status', 'in', HELD_STATUSES)
      .execute();
  }

  async find(organizationId: string, id: string): Promise<RunWithSteps | null> {
    const [row] = await preparedQuery(this.db, 'runs.find', this.findRun.bind({ organizationId, id }));
    return row ? toRunWithSteps(row) : null;
  }
}

/** A statement for each way a holder's write leaves the run. */
function perHold<S>(build: (hold: Hold) => S): Record<Hold, S> {
  return {
    held: build('held'),
    complete: build('complete'),
    errored: build('errored'),
    waiting: build('waiting'),
    paused: build('paused'),
    terminated: build('terminated'),
  };
}
