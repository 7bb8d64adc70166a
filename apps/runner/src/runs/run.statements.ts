import { BoundStatement, type Param } from '#persistence';
import { type Expression, isExpression, type Kysely, type Selectable, sql } from 'kysely';

import type { RunRecord, RunSettlement, StepRecord } from '../engine/run-state.js';
import type { DB, RunnerRuns, RunnerRunSteps } from '../runner.tables.js';
import { type HeldBy, UNGATED } from '../start/run-flow.js';
import type { NewRun } from './new-run.js';
import {
  heldOrSettled,
  leaseEnd,
  newRunRow,
  now,
  RUN_RECORD_COLUMNS,
  type RunColumns,
  type StepJson,
  toStepJson,
} from './run.mapper.js';

/*
 * The run's hot statements, each built and compiled by Kysely once (BoundStatement, one per variant)
 * and sent with new values on every call: building them cost far more client CPU than Postgres takes
 * to run some of them. Measured per call of the repository's method, its send stubbed to `compile()`
 * (median of ten rounds of 1,000, interleaved with the statements built per call as before, on the
 * shared 2-core host; three steps), built per call → bound, in µs: insert 56.9 → 6.1, insertStarted
 * 71.0–77.7 → 15.8–17.7, claim 52.5 → 0.4, checkpoint 35.9–37.0 → 6.9–8.0, renewLease 7.7 → 0.4,
 * find 33.4 → 0.4. What a bound write still spends is the JSON of its row and steps. The text is the
 * one built per call but for its placeholders' numbers and the constants ('running', 1), now literals.
 */

/** The values a statement places by name: `Named`'s, and a write's columns under their own names. */
type Values<Named = object> = Named & Record<string, unknown>;

/** What a write by the run's holder leaves: still held (its lease renewed), or settled so. */
export type Hold = 'held' | RunSettlement['status'];

export const holdAfter = (settlement: RunSettlement | undefined): Hold => settlement?.status ?? 'held';

/** A settlement of each kind, to build its statement from: only which columns it writes is read. */
const SETTLEMENT_OF: Record<Hold, RunSettlement | undefined> = {
  held: undefined,
  complete: { status: 'complete', reply: '' },
  errored: { status: 'errored', error: '' },
  waiting: { status: 'waiting', wakeAt: new Date(0) },
  paused: { status: 'paused', wakeAt: null },
  terminated: { status: 'terminated', error: '' },
};

/** The run is held by a runner: the statuses a holder's write may find it in (`HELD_STATUSES`). */
const isHeld = () => sql<boolean>`status IN ('running', 'waitingForPause', 'rollingBack')`;

/**
 * The lease's length as a holder's write places it: only a write that keeps the run renews the lease.
 * A settled write names no lease, and a parameter its text never uses would leave Postgres unable to
 * type it, so it takes none (the 0 is never read).
 */
const leaseMsOf = (hold: Hold, param: Param<Values>) =>
  hold === 'held' ? (param('leaseMs') as Expression<number>) : 0;

/** A run to build the insert from: only the names of the columns `newRunRow` writes are read. */
const ANY_RUN = { flow: UNGATED } as NewRun;

/**
 * A write's columns in the statement: a value is the parameter named by its column, an SQL
 * expression (`now()`) stays in the text.
 */
function placed(write: object, param: Param<Values>): Record<string, Expression<unknown>> {
  return Object.fromEntries(
    Object.entries(write).map(([column, value]) => [column, isExpression(value) ? value : param(column)]),
  );
}

/** The steps of a write as the one JSON parameter `stepRows` reads. */
export const stepsJson = (runId: string, steps: readonly StepRecord[]) =>
  JSON.stringify(steps.map((step) => toStepJson(runId, step)));

/**
 * Steps sent as one JSON parameter and read back as `run_steps` rows: the table's own row type
 * gives each column its type, so the statement names no column.
 */
function stepRows(json: Expression<string>) {
  return sql<Selectable<RunnerRunSteps>>`jsonb_populate_recordset(NULL::runner.run_steps, ${json}::jsonb)`.as(
    's',
  );
}

/** The steps of the run `r` in start order as one JSON value, so a run and its steps are one round trip. */
export function stepsOfR(db: Kysely<DB>) {
  return db
    .selectFrom('runner.run_steps as s')
    .select(sql<StepJson[]>`coalesce(json_agg(s ORDER BY s.position), '[]'::json)`.as('steps'))
    .where('s.run_id', '=', sql.ref<string>('r.id'))
    .$asScalar()
    .$notNull()
    .as('steps');
}

/** The columns a started run is written with, beside `newRunRow`'s: held by its writer, or settled. */
export function startedColumns(
  run: NewRun,
  settlement: RunSettlement | undefined,
  leaseMs: number | Expression<number>,
): RunColumns & { status: RunRecord['status'] } {
  return {
    status: 'running',
    lease_token: 1,
    claims: 1,
    started_at: run.createdAt,
    ...heldOrSettled(settlement, leaseMs),
  };
}

/**
 * A run's insert that writes `write`'s columns besides `newRunRow`'s (see `RunRepository.record`).
 * A queued run's also decides whether the run is held (docs/flow-control.md): at its workflow's first
 * gate (`gate`, decided by the start), or for its organization's share of the queue when `share` of
 * its runs already wait there; a held run has no job until a gate lets it through.
 */
function recordStatement(db: Kysely<DB>, write: (param: Param<Values>) => object, queued: boolean) {
  return new BoundStatement((param: Param<Values<{ steps: string }>>) => {
    const row = placed({ ...newRunRow(ANY_RUN), ...write(param) }, param);
    if (queued) {
      row['held_by'] = sql`gate.held`;
      row['dispatched_at'] = sql`CASE WHEN gate.held IS NULL THEN now() END`;
    }
    const columns = Object.keys(row) as Array<keyof RunnerRuns>;
    const share = sql`${param('share')}::integer`;
    return db
      .with('gate', (cte) =>
        cte.selectNoFrom([
          sql<boolean>`runner.workflow_takes_runs(${param('organization_id')}, ${param('workflow_id')})`.as(
            'open',
          ),
          (queued
            ? sql<HeldBy | null>`CASE
                WHEN ${param('gate')}::text IS NOT NULL THEN ${param('gate')}::text
                WHEN ${share} IS NOT NULL AND ${share} <= (
                  SELECT count(*) FROM (
                    SELECT 1 FROM runner.runs
                     WHERE organization_id = ${param('organization_id')} AND status = 'queued'
                       AND held_by IS NULL
                     LIMIT ${share}) waiting)
                THEN 'share' END`
            : sql<HeldBy | null>`NULL::text`
          ).as('held'),
        ]),
      )
      .with('run', (cte) =>
        cte
          .insertInto('runner.runs')
          .columns(columns)
          .expression(
            cte
              .selectFrom('gate')
              .select(columns.map((column) => sql`${row[column]}`.as(column)))
              .where((eb) => eb.ref('gate.open')),
          )
          // Either claim may be taken: an idempotency key, or a child's key among its parent's children.
          .onConflict((oc) => oc.doNothing())
          .returning(['id', 'held_by']),
      )
      .with('written', (cte) =>
        cte
          .insertInto('runner.run_steps')
          .expression(cte.selectFrom(['run', stepRows(param('steps'))]).selectAll('s')),
      )
      .selectFrom('gate')
      .select((eb) => [
        'gate.open',
        eb.exists(eb.selectFrom('run').select('run.id')).as('recorded'),
        eb.selectFrom('run').select('run.held_by').as('heldBy'),
      ]);
  });
}

/** A queued run's insert: its job is dispatched once it is written, unless it is held. */
export const QUEUED_COLUMNS = { status: 'queued' } as const;

export const insertStatement = (db: Kysely<DB>) => recordStatement(db, () => QUEUED_COLUMNS, true);

/** A started run's insert, held by its writer or settled as `hold`. */
export const insertStartedStatement = (db: Kysely<DB>, hold: Hold) =>
  recordStatement(db, (param) => startedColumns(ANY_RUN, SETTLEMENT_OF[hold], leaseMsOf(hold, param)), false);

export function claimStatement(db: Kysely<DB>) {
  return new BoundStatement((param: Param<{ runId: string; leaseMs: number }>) =>
    db
      .with('claimed', (cte) =>
        cte
          .updateTable('runner.runs')
          .set((eb) => ({
            // A run claimed while pausing or rolling back goes on doing that.
            status: eb
              .case()
              .when('status', '=', sql.lit('queued'))
              .then(sql.lit<RunRecord['status']>('running'))
              .else(eb.ref('status'))
              .end(),
            lease_token: eb('lease_token', '+', sql.lit(1)),
            claims: eb('claims', '+', sql.lit(1)),
            lease_expires_at: leaseEnd(param('leaseMs')),
            started_at: eb.fn.coalesce('started_at', now()),
          }))
          .where('id', '=', param('runId'))
          .where((eb) =>
            eb.or([
              // A run held at a gate (docs/flow-control.md) is taken once the gate lets it through.
              eb.and([eb('status', '=', sql.lit('queued')), eb('held_by', 'is', null)]),
              eb.and([isHeld(), eb('lease_expires_at', '<', now())]),
              // A cancel with a rollback leaves the run to whichever runner takes it first.
              eb.and([eb('status', '=', sql.lit('rollingBack')), eb('lease_expires_at', 'is', null)]),
            ]),
          )
          .returningAll(),
      )
      .selectFrom('claimed as r')
      .select(RUN_RECORD_COLUMNS)
      .select(stepsOfR(db)),
  );
}

/** The holds whose status depends on whether a pause was asked for (`PAUSE_AWARE`). */
const pauseAware = (hold: Hold): hold is 'waiting' | 'paused' => hold === 'waiting' || hold === 'paused';

/**
 * A run asked to pause that comes to wait is `paused`. A holder that settles `paused` when no pause
 * was asked for (a notice that came late) leaves the run `queued`, for the sweeper to hand on.
 */
const PAUSE_AWARE = {
  waiting: {
    status: sql<RunRecord['status']>`CASE WHEN status = 'waitingForPause' THEN 'paused' ELSE 'waiting' END`,
  },
  paused: {
    status: sql<RunRecord['status']>`CASE WHEN status = 'waitingForPause' THEN 'paused' ELSE 'queued' END`,
    dispatched_at: sql<Date>`CASE WHEN status = 'waitingForPause' THEN dispatched_at ELSE coalesce(dispatched_at, now()) END`,
  },
};

/** The columns a holder's write sets, the status as a value but where it depends on a pause asked for. */
function settledColumns(hold: Hold, param: Param<Values>): RunColumns {
  const { status, ...columns } = heldOrSettled(SETTLEMENT_OF[hold], leaseMsOf(hold, param));
  return pauseAware(hold) ? columns : { ...columns, ...(status === undefined ? {} : { status }) };
}

/**
 * A holder's checkpoint that leaves the run as `hold`, answering the run's status after it: a holder
 * learns here that its run was asked to pause. A run asked to pause that comes to wait is `paused`.
 */
export function checkpointStatement(db: Kysely<DB>, hold: Hold) {
  return new BoundStatement((param: Param<Values<{ runId: string; leaseToken: number; steps: string }>>) =>
    db
      .with('run', (cte) =>
        cte
          .updateTable('runner.runs')
          .set({
            ...placed(settledColumns(hold, param), param),
            ...(pauseAware(hold) ? PAUSE_AWARE[hold] : {}),
          })
          .where('id', '=', param('runId'))
          .where('lease_token', '=', param('leaseToken'))
          .where(isHeld())
          .returning(['id', 'status']),
      )
      .with('written', (cte) =>
        cte
          .insertInto('runner.run_steps')
          .expression(cte.selectFrom(['run', stepRows(param('steps'))]).selectAll('s'))
          .onConflict((oc) =>
            oc.columns(['run_id', 'node_id', 'compensation']).doUpdateSet((eb) => ({
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
      .select(['run.id', 'run.status']),
  );
}

export function renewLeaseStatement(db: Kysely<DB>) {
  return new BoundStatement((param: Param<{ runId: string; leaseToken: number; leaseMs: number }>) =>
    db
      .updateTable('runner.runs')
      .set({ lease_expires_at: leaseEnd(param('leaseMs')) })
      .where('id', '=', param('runId'))
      .where('lease_token', '=', param('leaseToken'))
      .where(isHeld())
      .returning(['id', 'status']),
  );
}

/**
 * The run an idempotency key created in the last `ttlHours`, with its steps and the fingerprint of
 * the request that made it; an older holder of the key gives it up in the same statement.
 */
export function findByKeyStatement(db: Kysely<DB>) {
  return new BoundStatement((param: Param<{ organizationId: string; key: string; ttlHours: number }>) => {
    const keptSince = sql<Date>`now() - make_interval(hours => ${param('ttlHours')}::integer)`;
    return db
      .with('released', (cte) =>
        cte
          .updateTable('runner.runs')
          .set({ idempotency_key: sql<null>`NULL` })
          .where('organization_id', '=', param('organizationId'))
          .where('idempotency_key', '=', param('key'))
          .where('created_at', '<', keptSince)
          .returning('id'),
      )
      .selectFrom('runner.runs as r')
      .select(RUN_RECORD_COLUMNS)
      .select(['r.idempotency_fingerprint as fingerprint', stepsOfR(db)])
      .where('r.organization_id', '=', param('organizationId'))
      .where('r.idempotency_key', '=', param('key'))
      .where('r.created_at', '>=', keptSince);
  });
}

export function findStatement(db: Kysely<DB>) {
  return new BoundStatement((param: Param<{ organizationId: string; id: string }>) =>
    db
      .selectFrom('runner.runs as r')
      .select(RUN_RECORD_COLUMNS)
      .select(stepsOfR(db))
      .where('r.organization_id', '=', param('organizationId'))
      .where('r.id', '=', param('id')),
  );
}
