import { InjectKysely, preparedQuery } from '#persistence';
import { Injectable } from '@nestjs/common';
import { type Insertable, Kysely, type Selectable, sql } from 'kysely';

import type { RunRecord, RunSettlement, RunWithSteps, StepRecord } from '../engine/run-state.js';
import type { DB, RunnerRuns, RunnerRunSteps } from '../runner.tables.js';
import type { NewRun } from './new-run.js';
import { triggerStepOf } from './new-run.js';
import {
  heldOrSettled,
  leaseEnd,
  newRunRow,
  now,
  RUN_RECORD_COLUMNS,
  type RunColumns,
  type StepJson,
  toRunWithSteps,
  toStepJson,
  type Written,
} from './run.mapper.js';

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

/**
 * Steps sent as one JSON parameter and read back as `run_steps` rows: the table's own row type
 * gives each column its type, so the statement names no column.
 */
function stepRows(runId: string, steps: readonly StepRecord[]) {
  const json = JSON.stringify(steps.map((step) => toStepJson(runId, step)));
  return sql<Selectable<RunnerRunSteps>>`jsonb_populate_recordset(NULL::runner.run_steps, ${json}::jsonb)`.as(
    's',
  );
}

/**
 * A run with its steps: writing it when it starts, taking it, its checkpoints and its lease, and
 * reading it. The hot path (start, claim, checkpoint) is one statement each, so a run costs a
 * handful of round trips however many steps it has. These statements, and the read of a run, run as
 * named prepared statements: Postgres plans each once per connection. Built by Kysely but unprepared
 * they cost more than the hand-written statements they replaced (a run recorded in one statement
 * +39%, a run read +25%); prepared they cost less (-12 to -16%, -18%; a queued run's claim and two
 * checkpoints -23%, a lease renewal -36%: medians of calls interleaved on one database).
 */
@Injectable()
export class RunRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /**
   * The run an idempotency key created in the last `ttlHours`, with its steps. An older holder of
   * the key gives it up in the same statement, so the key can start a new run.
   */
  async findByIdempotencyKey(
    organizationId: string,
    key: string,
    ttlHours: number,
  ): Promise<KeyHolder | null> {
    const keptSince = sql<Date>`now() - make_interval(hours => ${ttlHours})`;
    const row = await this.db
      .with('released', (db) =>
        db
          .updateTable('runner.runs')
          .set({ idempotency_key: null })
          .where('organization_id', '=', organizationId)
          .where('idempotency_key', '=', key)
          .where('created_at', '<', keptSince)
          .returning('id'),
      )
      .selectFrom('runner.runs as r')
      .select(RUN_RECORD_COLUMNS)
      .select(['r.idempotency_fingerprint as fingerprint', this.stepsOfR()])
      .where('r.organization_id', '=', organizationId)
      .where('r.idempotency_key', '=', key)
      .where('r.created_at', '>=', keptSince)
      .executeTakeFirst();
    if (!row) return null;
    const { fingerprint, ...run } = row;
    return { run: toRunWithSteps(run), fingerprint };
  }

  /**
   * Writes the run, `queued`, and its trigger step, `done`, in one statement: once it is `recorded`
   * the run exists and its job will be executed (`queuedRunOf` is what was written).
   */
  insert(run: NewRun): Promise<RecordOutcome> {
    return this.record('runs.insert', run, { status: 'queued', dispatched_at: now() }, [triggerStepOf(run)]);
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
    return this.record(
      `runs.insertStarted.${settlement?.status ?? 'held'}`,
      run,
      {
        status: 'running',
        lease_token: 1,
        claims: 1,
        started_at: run.createdAt,
        ...heldOrSettled(settlement, leaseMs),
      },
      steps,
    );
  }

  /**
   * Inserts a run, with the columns of the write (`status` and the lease), and its steps, unless its
   * idempotency key is taken or its workflow no longer takes runs. The gate waits for any termination
   * of the workflow under way and says whether the workflow still takes runs (see the
   * `terminated_workflows` migration); the insert is an `INSERT … SELECT … FROM gate`, column by column.
   */
  private async record(
    statement: string,
    run: NewRun,
    write: RunColumns & { status: RunRecord['status'] },
    steps: readonly StepRecord[],
  ): Promise<RecordOutcome> {
    const values: Written<Insertable<RunnerRuns>> = { ...newRunRow(run), ...write };
    const columns = Object.keys(values) as Array<keyof RunnerRuns>;
    const query = this.db
      .with('gate', (db) =>
        db.selectNoFrom(
          sql<boolean>`runner.workflow_takes_runs(${run.organizationId}, ${run.workflowId})`.as('open'),
        ),
      )
      .with('run', (db) =>
        db
          .insertInto('runner.runs')
          .columns(columns)
          .expression(
            db
              .selectFrom('gate')
              .select(columns.map((column) => sql`${values[column]}`.as(column)))
              .where((eb) => eb.ref('gate.open')),
          )
          .onConflict((oc) =>
            oc
              .columns(['organization_id', 'idempotency_key'])
              .where('idempotency_key', 'is not', null)
              .doNothing(),
          )
          .returning('id'),
      )
      .with('written', (db) =>
        db
          .insertInto('runner.run_steps')
          .expression(db.selectFrom(['run', stepRows(run.id, steps)]).selectAll('s')),
      )
      .selectFrom('gate')
      .select((eb) => ['gate.open', eb.exists(eb.selectFrom('run').select('run.id')).as('recorded')]);
    const [{ open, recorded }] = await preparedQuery(this.db, statement, query);
    return !open ? 'workflow_deleted' : recorded ? 'recorded' : 'key_taken';
  }

  /**
   * Takes the run for this runner: it must be `queued`, or `running` under a lease that has run out
   * (its runner died). The new lease token fences off whoever held it before. Answers the run with
   * its checkpoints, or null when it is not to be taken now.
   */
  async claim(runId: string, leaseMs: number): Promise<RunWithSteps | null> {
    const query = this.db
      .with('claimed', (db) =>
        db
          .updateTable('runner.runs')
          .set((eb) => ({
            status: 'running',
            lease_token: eb('lease_token', '+', 1),
            claims: eb('claims', '+', 1),
            lease_expires_at: leaseEnd(leaseMs),
            started_at: eb.fn.coalesce('started_at', now()),
          }))
          .where('id', '=', runId)
          .where((eb) =>
            eb.or([
              eb('status', '=', 'queued'),
              eb.and([eb('status', '=', 'running'), eb('lease_expires_at', '<', now())]),
            ]),
          )
          .returningAll(),
      )
      .selectFrom('claimed as r')
      .select(RUN_RECORD_COLUMNS)
      .select(this.stepsOfR());
    const [row] = await preparedQuery(this.db, 'runs.claim', query);
    return row ? toRunWithSteps(row) : null;
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
   * statement. False when the run is no longer this holder's (terminated, or taken over after the
   * lease ran out): then nothing is written, which is how late results are dropped.
   */
  async checkpoint(
    runId: string,
    leaseToken: number,
    leaseMs: number,
    steps: readonly StepRecord[],
    settlement?: RunSettlement,
  ): Promise<boolean> {
    const query = this.db
      .with('run', (db) =>
        db
          .updateTable('runner.runs')
          .set(heldOrSettled(settlement, leaseMs))
          .where('id', '=', runId)
          .where('lease_token', '=', leaseToken)
          .where('status', '=', 'running')
          .returning('id'),
      )
      .with('written', (db) =>
        db
          .insertInto('runner.run_steps')
          .expression(db.selectFrom(['run', stepRows(runId, steps)]).selectAll('s'))
          .onConflict((oc) =>
            oc.columns(['run_id', 'node_id']).doUpdateSet((eb) => ({
              status: eb.ref('excluded.status'),
              via: eb.ref('excluded.via'),
              input: eb.ref('excluded.input'),
              output: eb.ref('excluded.output'),
              error: eb.ref('excluded.error'),
              ms: eb.ref('excluded.ms'),
              attempt: eb.ref('excluded.attempt'),
              route: eb.ref('excluded.route'),
              state: eb.ref('excluded.state'),
              wake_at: eb.ref('excluded.wake_at'),
            })),
          ),
      )
      .selectFrom('run')
      .select('run.id');
    const held = await preparedQuery(this.db, `runs.checkpoint.${settlement?.status ?? 'held'}`, query);
    return held.length > 0;
  }

  /** Keeps the holder's lease alive during a long step; false when it is no longer the holder's. */
  async renewLease(runId: string, leaseToken: number, leaseMs: number): Promise<boolean> {
    const query = this.db
      .updateTable('runner.runs')
      .set({ lease_expires_at: leaseEnd(leaseMs) })
      .where('id', '=', runId)
      .where('lease_token', '=', leaseToken)
      .where('status', '=', 'running')
      .returning('id');
    return (await preparedQuery(this.db, 'runs.renewLease', query)).length > 0;
  }

  /** Hands a run back at once (shutdown), so the next runner need not wait for the lease to run out. */
  async releaseLease(runId: string, leaseToken: number): Promise<void> {
    await this.db
      .updateTable('runner.runs')
      .set({ lease_expires_at: sql<Date>`now() - interval '1 millisecond'` })
      .where('id', '=', runId)
      .where('lease_token', '=', leaseToken)
      .where('status', '=', 'running')
      .execute();
  }

  async find(organizationId: string, id: string): Promise<RunWithSteps | null> {
    const query = this.db
      .selectFrom('runner.runs as r')
      .select(RUN_RECORD_COLUMNS)
      .select(this.stepsOfR())
      .where('r.organization_id', '=', organizationId)
      .where('r.id', '=', id);
    const [row] = await preparedQuery(this.db, 'runs.find', query);
    return row ? toRunWithSteps(row) : null;
  }

  /** The steps of the run `r` in start order as one JSON value, so a run and its steps are one round trip. */
  private stepsOfR() {
    return this.db
      .selectFrom('runner.run_steps as s')
      .select(sql<StepJson[]>`coalesce(json_agg(s ORDER BY s.position), '[]'::json)`.as('steps'))
      .where('s.run_id', '=', sql.ref<string>('r.id'))
      .$asScalar()
      .$notNull()
      .as('steps');
  }
}
