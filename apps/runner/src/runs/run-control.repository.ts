import type { RunHeldBy } from '#contracts';
import { type AuditCaller, InjectKysely } from '#persistence';
import { Injectable } from '@nestjs/common';
import { type ExpressionBuilder, Kysely, type QueryCreator, sql } from 'kysely';

import type { StoredRunStatus } from '../engine/run-state.js';
import { audit } from '../audit/runner-audit.js';
import type { DB } from '../runner.tables.js';

/** A run the sweeper hands to the queue again. */
export interface DispatchedRun {
  runId: string;
  dispatch: number;
}

/** A run a sweep moved back to the queue; `woken` when it was `waiting` and is now `queued`. */
export interface SweptRun extends DispatchedRun {
  woken: boolean;
  /** The run's span, which the job's handling continues (docs/tracing.md). */
  traceParent: string | null;
}

const now = () => sql<Date>`now()`;

/** `ms` before now, by the database's clock. */
const ago = (ms: number) => sql<Date>`now() - make_interval(secs => ${ms} / 1000.0)`;

/** A run's status before a control move and after it (null: the move did not apply). */
export interface ControlMove {
  before: StoredRunStatus | null;
  after: StoredRunStatus | null;
  /** The job to publish, when the move queued the run. */
  job: DispatchedRun | null;
  /** The run's unfinished descendants the move moved with it (docs/runs.md, "Child runs"). */
  descendants: MovedDescendant[];
  /** The run's parent and the node of its step, when it is a child run. */
  parent: { runId: string; nodeId: string } | null;
}

/** A child run (or a child's child…) moved with the run it was started under. */
export interface MovedDescendant {
  runId: string;
  status: StoredRunStatus;
  /** The job to publish, when the move queued it (a resume). */
  job: DispatchedRun | null;
}

/** A run a deleted workflow's termination ended, with its parent when it is a child run. */
export interface TerminatedRun {
  id: string;
  parentRunId: string | null;
  parentNodeId: string | null;
}

/**
 * The ids of the run's descendants: its children, theirs, and so on (at most `RUN_MAX_DEPTH` levels,
 * each through `runs_child_key`'s leading column).
 */
const descendantsOf = (db: Kysely<DB>, organizationId: string, runIds: readonly string[]) =>
  db
    .withRecursive('tree(id)', (cte) =>
      cte
        .selectFrom('runner.runs')
        .select('id')
        .where('parent_run_id', 'in', runIds)
        .where('organization_id', '=', organizationId)
        .unionAll(
          cte.selectFrom('runner.runs as r').innerJoin('tree', 'tree.id', 'r.parent_run_id').select('r.id'),
        ),
    )
    .selectFrom('tree')
    .select('tree.id');

/** What a child run's `parent_run_id` and `parent_node_id` make of its parent. */
const parentOf = (row: { parentRunId: string | null; parentNodeId: string | null }) =>
  row.parentRunId === null || row.parentNodeId === null
    ? null
    : { runId: row.parentRunId, nodeId: row.parentNodeId };

/** The run a move names, with its status before the move: only the organization's own run. */
const runOf = (db: QueryCreator<DB>, organizationId: string, runId: string) =>
  db
    .selectFrom('runner.runs')
    .select(['id', 'status', 'parent_run_id', 'parent_node_id'])
    .where('id', '=', runId)
    .where('organization_id', '=', organizationId);

/**
 * A resumed run's new dispatch: only a run no gate holds (docs/flow-control.md) is queued with a job;
 * a held one goes back to waiting at its gate, which looks at it again (`run_resumed_held`).
 */
const resumedDispatch = (eb: ExpressionBuilder<DB, 'runner.runs'>) => ({
  dispatch: sql<number>`CASE WHEN held_by IS NULL THEN ${eb.ref('dispatch')} + 1 ELSE ${eb.ref('dispatch')} END`,
  dispatched_at: sql<Date | null>`CASE WHEN held_by IS NULL THEN now() END`,
});

/** The dispatch of the job a move publishes, null when the run has none (held at a gate). */
const jobDispatch = (eb: ExpressionBuilder<DB, 'runner.runs'>) =>
  sql<number | null>`CASE WHEN ${eb.ref('held_by')} IS NULL THEN ${eb.ref('dispatch')} END`.as('dispatch');

/** The statuses a run can be cancelled from: every status but the final ones and `rollingBack`. */
const CANCELLABLE = sql<boolean>`status IN ('queued', 'running', 'waiting', 'paused', 'waitingForPause')`;

/**
 * What moves runs without holding them: the sweeper's requeue, an approval's wake, cancel, pause and
 * resume, and the termination of a deleted workflow's runs.
 */
@Injectable()
export class RunControlRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /**
   * Lets through the scheduled runs written before their due time (`heldBy: schedule`) whose time has
   * come, up to `limit`, as one statement: each goes on to what a run started now would meet, its
   * workflow's throttle or concurrency gate, else its organization's share (`openDueGates` then
   * fills the share's free places, as it does for any run held for it), else the queue. Answers the
   * jobs to publish for the runs that went straight to the queue, and how many were let through. A
   * concurrency gate is looked at in the same transaction, as when such a run is written; a throttle
   * gate by `openDueGates`, its release time now.
   */
  async releaseScheduled(limit: number): Promise<{ released: number; jobs: SweptRun[] }> {
    // Set-based rather than `runner.pass_gate` run by run: ten thousand come due at the same instant.
    return this.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{
        runId: string;
        next: RunHeldBy | null;
        dispatch: number;
        traceParent: string | null;
        workflowId: string;
        concurrencyKey: string | null;
      }>`
        WITH due AS (
          SELECT id, CASE WHEN throttle_key IS NOT NULL THEN 'throttle'
                          WHEN concurrency_key IS NOT NULL THEN 'concurrency'
                          WHEN share IS NOT NULL THEN 'share' END AS next
            FROM runner.runs
           WHERE held_by = 'schedule' AND status = 'queued' AND release_at <= now()
           ORDER BY release_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
        )
        UPDATE runner.runs r
           SET held_by = due.next,
               release_at = CASE WHEN due.next = 'throttle' THEN now() END,
               dispatch = CASE WHEN due.next IS NULL THEN r.dispatch + 1 ELSE r.dispatch END,
               dispatched_at = CASE WHEN due.next IS NULL THEN now() END
          FROM due WHERE r.id = due.id
        RETURNING r.id AS "runId", due.next, r.dispatch, r.trace_parent AS "traceParent",
                  r.workflow_id AS "workflowId", r.concurrency_key AS "concurrencyKey"`.execute(trx);
      const concurrent = rows.filter((row) => row.next === 'concurrency');
      if (concurrent.length > 0) {
        await sql`
          SELECT runner.admit_concurrent(gate.workflow_id, gate.key)
            FROM (SELECT DISTINCT * FROM unnest(${concurrent.map((row) => row.workflowId)}::text[],
                                               ${concurrent.map((row) => row.concurrencyKey)}::text[])
                    AS keys(workflow_id, key)) gate`.execute(trx);
      }
      const jobs = rows
        .filter((row) => row.next === null)
        .map(({ runId, dispatch, traceParent }) => ({ runId, dispatch, traceParent, woken: false }));
      return { released: rows.length, jobs };
    });
  }

  /**
   * Opens the gates whose time has come (docs/flow-control.md): debounced runs whose period passed
   * without a later start go on, throttles whose period made room let their next runs through, and
   * organizations whose share of the queue is not full (a run that left it without a claim, say
   * deleted) have it filled. Answers how many runs or keys it looked at; the runs let through are
   * published by `AdmittedRuns`. The throttles' keys are read without a lock: `admit_throttled` takes
   * its key's lock before it touches a run, the order every gate takes them in.
   */
  async openDueGates(limit: number): Promise<number> {
    const { rows } = await sql<{ opened: number }>`
      WITH debounced AS (
        SELECT runner.pass_gate(id) FROM (
          SELECT id FROM runner.runs
           WHERE held_by = 'debounce' AND status = 'queued' AND release_at <= now()
           ORDER BY release_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
        ) due
      ), throttled AS (
        SELECT runner.admit_throttled(workflow_id, throttle_key) FROM (
          SELECT DISTINCT workflow_id, throttle_key FROM runner.runs
           WHERE held_by = 'throttle' AND status = 'queued' AND release_at <= now()
           LIMIT ${limit}
        ) due
      ), shares AS (
        SELECT runner.pass_gate(next.id) FROM (
          SELECT first.organization_id, first.share - (
            SELECT count(*) FROM runner.runs q
             WHERE q.organization_id = first.organization_id AND q.status = 'queued' AND q.held_by IS NULL
          ) AS free
          FROM (
            SELECT DISTINCT ON (organization_id) organization_id, share FROM runner.runs
             WHERE held_by = 'share' AND status = 'queued'
             ORDER BY organization_id, priority DESC, created_at, id
             LIMIT ${limit}
          ) first
        ) org
        CROSS JOIN LATERAL (
          SELECT id FROM runner.runs
           WHERE organization_id = org.organization_id AND held_by = 'share' AND status = 'queued'
           ORDER BY priority DESC, created_at, id
           LIMIT greatest(org.free, 0) FOR UPDATE SKIP LOCKED
        ) next
      )
      SELECT (SELECT count(*) FROM debounced) + (SELECT count(*) FROM throttled)
           + (SELECT count(*) FROM shares) AS opened`.execute(this.db);
    return Number(rows[0]?.opened ?? 0);
  }

  /**
   * How long until the earliest waiting run or scheduled run held for its time is due, in
   * milliseconds by the database's clock (so the replicas' clocks do not matter), or null when none
   * waits on a time. One step into `runs_waiting_idx` and one into `runs_held_schedule_idx`, whatever
   * the number of runs waiting.
   */
  async nextWakeInMs(): Promise<number | null> {
    const { rows } = await sql<{ in_ms: number | null }>`
      SELECT extract(epoch FROM least(
               (SELECT min(wake_at) FROM runner.runs WHERE status = 'waiting'),
               (SELECT min(release_at) FROM runner.runs WHERE held_by = 'schedule' AND status = 'queued')
             ) - now()) * 1000 AS in_ms`.execute(this.db);
    const inMs = rows[0]?.in_ms;
    return inMs === null || inMs === undefined ? null : Number(inMs);
  }

  /**
   * Moves due runs back to the queue and answers the jobs to publish for them: waiting runs whose
   * wake time has come, queued runs whose job seems lost (its publish failed), and running runs
   * whose runner died and whose job JetStream no longer redelivers. Rows are claimed with
   * `FOR UPDATE SKIP LOCKED`, so the sweepers of several replicas share the work. The caller
   * publishes after this commits: a job must never reach a runner before the run it names is
   * claimable, and a publish that fails leaves a `queued` run the next sweep publishes again.
   * `requeueAfterMs` null looks for no lost job (the queue has a backlog: see `RunSweeper`).
   * Each status is a literal, so the planner matches it to its partial index.
   */
  sweep(limit: number, requeueAfterMs: number | null, recoverAfterMs: number): Promise<SweptRun[]> {
    return this.db
      .with('waiting', (db) =>
        db
          .selectFrom('runner.runs')
          .select('id')
          .where('status', '=', sql.lit('waiting'))
          .where('wake_at', '<=', now())
          .orderBy('wake_at')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .with('lost', (db) =>
        db
          .selectFrom('runner.runs')
          .select('id')
          .where('status', '=', sql.lit('queued'))
          .where(
            requeueAfterMs === null ? sql.lit(false) : sql<boolean>`dispatched_at < ${ago(requeueAfterMs)}`,
          )
          .orderBy('dispatched_at')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .with('orphaned', (db) =>
        db
          .selectFrom('runner.runs')
          .select('id')
          .where('status', '=', sql.lit('running'))
          .where((eb) =>
            eb.or([
              // Claimed when accepted, never queued: no job of it exists to be redelivered.
              eb.and([eb('dispatched_at', 'is', null), eb('lease_expires_at', '<', now())]),
              // Its job exists: JetStream redelivers it once the ack wait (the lease) has passed, so
              // the sweeper steps in only when that did not happen.
              eb.and([
                eb('lease_expires_at', '<', ago(recoverAfterMs)),
                eb('dispatched_at', '<', ago(recoverAfterMs)),
              ]),
            ]),
          )
          .orderBy('lease_expires_at')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .with('held', (db) =>
        db
          .selectFrom('runner.runs')
          .select('id')
          // Pausing or rolling back (`runs_held_idx`): held like a running run, or, after a cancel
          // with a rollback, not held yet, its job published when the cancel was.
          .where(sql<boolean>`status IN ('waitingForPause', 'rollingBack')`)
          .where((eb) =>
            eb.or([
              eb.and([eb('dispatched_at', 'is', null), eb('lease_expires_at', '<', now())]),
              eb.and([
                eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', ago(recoverAfterMs))]),
                eb('dispatched_at', '<', ago(recoverAfterMs)),
              ]),
            ]),
          )
          .orderBy('lease_expires_at')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .with('due', (db) =>
        db
          .selectFrom('waiting')
          .select(['id', sql<boolean>`true`.as('woken')])
          .unionAll(db.selectFrom('lost').select(['id', sql<boolean>`false`.as('woken')]))
          .unionAll(db.selectFrom('orphaned').select(['id', sql<boolean>`false`.as('woken')]))
          .unionAll(db.selectFrom('held').select(['id', sql<boolean>`false`.as('woken')])),
      )
      .updateTable('runner.runs as r')
      .from('due')
      .set((eb) => ({
        status: eb
          .case()
          .when('r.status', '=', sql.lit('waiting'))
          .then(sql.lit<StoredRunStatus>('queued'))
          .else(eb.ref('r.status'))
          .end(),
        wake_at: null,
        dispatch: eb('r.dispatch', '+', 1),
        dispatched_at: now(),
      }))
      .whereRef('r.id', '=', 'due.id')
      .returning(['r.id as runId', 'r.dispatch', 'due.woken', 'r.trace_parent as traceParent'])
      .execute();
  }

  /**
   * Wakes a run's waiting step now (an approval was decided). Answers the job to publish when the
   * run was waiting, and `woken` false while the run is running (the step has not come back as
   * waiting yet, or another branch still runs and the run's wake time is about to be written): the
   * caller asks again. A run that is queued, finished or not there has nothing left to wake.
   */
  async wakeStep(
    organizationId: string,
    runId: string,
    nodeId: string,
  ): Promise<{ woken: boolean; job: DispatchedRun | null }> {
    const row = await this.db
      .with('run', (db) => runOf(db, organizationId, runId))
      .with('woke', (db) =>
        db
          .updateTable('runner.run_steps')
          .set({ wake_at: now() })
          .where('run_id', '=', db.selectFrom('run').select('run.id'))
          .where('node_id', '=', nodeId)
          .where('status', '=', 'waiting')
          .returning('run_id'),
      )
      .with('queued', (db) =>
        db
          .updateTable('runner.runs')
          .set((eb) => ({
            status: 'queued',
            wake_at: null,
            dispatch: eb('dispatch', '+', 1),
            dispatched_at: now(),
          }))
          .where('id', '=', db.selectFrom('woke').select('woke.run_id'))
          .where('status', '=', 'waiting')
          .returning(['id', 'dispatch']),
      )
      .selectNoFrom((eb) => [
        eb.selectFrom('run').select('run.status').as('runStatus'),
        eb.selectFrom('queued').select('queued.dispatch').as('dispatch'),
        eb
          .selectFrom('runner.run_steps')
          .select('status')
          .where('run_id', '=', eb.selectFrom('run').select('run.id'))
          .where('node_id', '=', nodeId)
          .where('compensation', '=', false)
          .as('stepStatus'),
      ])
      .executeTakeFirstOrThrow();
    const job = row.dispatch === null ? null : { runId, dispatch: row.dispatch };
    // A held run may write the step again from what its holder knows: ask again once it let go. A
    // paused run keeps the woken step for its resume. A step that ended (a child's parent that did
    // not wait for it) has nothing to wake.
    const held = row.runStatus === 'running' || row.runStatus === 'waitingForPause';
    const ended = row.stepStatus === 'done' || row.stepStatus === 'error' || row.stepStatus === 'skipped';
    return { woken: job !== null || !held || ended, job };
  }

  /**
   * Cancels the run: `terminated` (or, with `rollback`, `rollingBack` to end `terminated`, its job
   * queued for whichever runner takes it), with `message` as its error and as the error of every step
   * that was running or waiting. The lease token moves on, so a runner that holds the run is refused
   * at its next write and writes nothing more. The row lock orders it against a holder's last
   * checkpoint and against another cancel: exactly one of them applies.
   */
  async cancel(
    organizationId: string,
    runId: string,
    message: string,
    rollback: boolean,
    caller: AuditCaller,
    reason?: string,
  ): Promise<ControlMove> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .with('target', (db) => runOf(db, organizationId, runId))
        .with('cancelled', (db) =>
          db
            .updateTable('runner.runs')
            .set((eb) => ({
              status: rollback ? 'rollingBack' : 'terminated',
              rollback_end: rollback ? 'terminated' : null,
              error: message,
              finished_at: rollback ? null : now(),
              wake_at: null,
              lease_expires_at: null,
              lease_token: eb('lease_token', '+', 1),
              // A rollback is a pick-up of its own, with its own allowance of claims.
              ...(rollback ? { dispatch: eb('dispatch', '+', 1), dispatched_at: now(), claims: 0 } : {}),
            }))
            .where('id', '=', db.selectFrom('target').select('target.id'))
            .where(CANCELLABLE)
            .returning(['id', 'status', 'dispatch']),
        )
        .selectNoFrom((eb) => [
          eb.selectFrom('target').select('target.status').as('before'),
          eb.selectFrom('target').select('target.parent_run_id').as('parentRunId'),
          eb.selectFrom('target').select('target.parent_node_id').as('parentNodeId'),
          eb.selectFrom('cancelled').select('cancelled.status').as('after'),
          eb.selectFrom('cancelled').select('cancelled.dispatch').as('dispatch'),
        ])
        .executeTakeFirstOrThrow();
      let descendants: MovedDescendant[] = [];
      if (row.after !== null) {
        // A statement of its own, once the run row's lock is held: a step the holder's last
        // checkpoint inserted while the cancel waited for the lock is in its snapshot, and stopped too.
        await trx
          .updateTable('runner.run_steps')
          .set((eb) => ({
            status: 'error',
            error: message,
            wake_at: null,
            // What a waiting step showed (pending approvals) is no longer true of it.
            output: null,
            ms: sql<number>`least(greatest(0, extract(epoch FROM now() - ${eb.ref('started_at')}) * 1000), 2147483647)::integer`,
          }))
          .where('run_id', '=', runId)
          .where('status', 'in', ['running', 'waiting'])
          .where('compensation', '=', false)
          .execute();
        descendants = await this.terminateDescendants(
          trx,
          organizationId,
          [runId],
          `Run ${runId}, which this run was started under, was cancelled. ${message}`,
        );
        await audit.record(trx, caller, {
          action: 'run.cancelled',
          resource: { type: 'run', id: runId, name: null },
          details: {
            from: row.before,
            rollback,
            ...(reason ? { reason } : {}),
            ...(descendants.length > 0 ? { childRuns: descendants.length } : {}),
          },
        });
      }
      return {
        before: row.before,
        after: row.after,
        job: rollback && row.dispatch !== null ? { runId, dispatch: row.dispatch } : null,
        descendants,
        parent: parentOf(row),
      };
    });
  }

  /**
   * The unfinished descendants of cancelled or terminated runs end `terminated` with them (no
   * rollback of their own: a descendant already rolling back finishes that), their running and
   * waiting steps `error`, their tokens moved on so their holders stop. Parent rows are locked before
   * their children's, as every move down the tree does.
   */
  private async terminateDescendants(
    trx: Kysely<DB>,
    organizationId: string,
    runIds: readonly string[],
    message: string,
  ): Promise<MovedDescendant[]> {
    const terminated = await trx
      .updateTable('runner.runs')
      .set((eb) => ({
        status: 'terminated',
        error: message,
        finished_at: now(),
        wake_at: null,
        lease_expires_at: null,
        lease_token: eb('lease_token', '+', 1),
      }))
      .where('id', 'in', descendantsOf(trx, organizationId, runIds))
      .where(CANCELLABLE)
      .returning(['id', 'status'])
      .execute();
    if (terminated.length === 0) return [];
    const ids = terminated.map((run) => run.id);
    await trx
      .updateTable('runner.run_steps')
      .set((eb) => ({
        status: 'error',
        error: message,
        wake_at: null,
        output: null,
        ms: sql<number>`least(greatest(0, extract(epoch FROM now() - ${eb.ref('started_at')}) * 1000), 2147483647)::integer`,
      }))
      .where('run_id', 'in', ids)
      .where('status', 'in', ['running', 'waiting'])
      .where('compensation', '=', false)
      .execute();
    return terminated.map((run) => ({ runId: run.id, status: run.status, job: null }));
  }

  /**
   * A `queued` or `waiting` run is `paused` at once (no runner holds it; its job, if delivered, finds
   * nothing to claim); a `running` one is `waitingForPause` and its holder pauses it.
   */
  async pause(organizationId: string, runId: string, caller: AuditCaller): Promise<ControlMove> {
    const row = await audit.recording(
      this.db,
      caller,
      async (trx) => {
        const moved = await trx
          .with('target', (db) => runOf(db, organizationId, runId))
          .with('paused', (db) =>
            db
              .updateTable('runner.runs')
              .set((eb) => ({
                status: eb
                  .case()
                  .when('status', '=', sql.lit('running'))
                  .then(sql.lit<StoredRunStatus>('waitingForPause'))
                  .else(sql.lit<StoredRunStatus>('paused'))
                  .end(),
              }))
              .where('id', '=', db.selectFrom('target').select('target.id'))
              .where('status', 'in', ['queued', 'waiting', 'running'])
              .returning('status'),
          )
          .selectNoFrom((eb) => [
            eb.selectFrom('target').select('target.status').as('before'),
            eb.selectFrom('target').select('target.parent_run_id').as('parentRunId'),
            eb.selectFrom('target').select('target.parent_node_id').as('parentNodeId'),
            eb.selectFrom('paused').select('paused.status').as('after'),
          ])
          .executeTakeFirstOrThrow();
        if (moved.after === null) return { ...moved, descendants: [] };
        // Its unfinished descendants pause with it, as a run would: at once, or once their steps end.
        const descendants = await trx
          .updateTable('runner.runs')
          .set((eb) => ({
            status: eb
              .case()
              .when('status', '=', sql.lit('running'))
              .then(sql.lit<StoredRunStatus>('waitingForPause'))
              .else(sql.lit<StoredRunStatus>('paused'))
              .end(),
          }))
          .where('id', 'in', descendantsOf(trx, organizationId, [runId]))
          .where('status', 'in', ['queued', 'waiting', 'running'])
          .returning(['id as runId', 'status'])
          .execute();
        return { ...moved, descendants: descendants.map((run) => ({ ...run, job: null })) };
      },
      (moved) =>
        moved.after === null
          ? null
          : {
              action: 'run.paused',
              resource: { type: 'run', id: runId, name: null },
              details: {
                from: moved.before,
                to: moved.after,
                ...(moved.descendants.length > 0 ? { childRuns: moved.descendants.length } : {}),
              },
            },
    );
    return {
      before: row.before,
      after: row.after,
      job: null,
      descendants: row.descendants,
      parent: parentOf(row),
    };
  }

  /** A `paused` run is `queued` again, its job to be published: a runner goes on from its checkpoints. */
  async resume(organizationId: string, runId: string, caller: AuditCaller): Promise<ControlMove> {
    const row = await audit.recording(
      this.db,
      caller,
      async (trx) => {
        const moved = await trx
          .with('target', (db) => runOf(db, organizationId, runId))
          .with('resumed', (db) =>
            db
              .updateTable('runner.runs')
              .set((eb) => ({
                status: 'queued',
                wake_at: null,
                ...resumedDispatch(eb),
                // Pausing is no interruption: a resumed run has its allowance of claims again.
                claims: 0,
              }))
              .where('id', '=', db.selectFrom('target').select('target.id'))
              .where('status', '=', 'paused')
              .returning((eb) => ['status', jobDispatch(eb)]),
          )
          .selectNoFrom((eb) => [
            eb.selectFrom('target').select('target.status').as('before'),
            eb.selectFrom('target').select('target.parent_run_id').as('parentRunId'),
            eb.selectFrom('target').select('target.parent_node_id').as('parentNodeId'),
            eb.selectFrom('resumed').select('resumed.status').as('after'),
            eb.selectFrom('resumed').select('resumed.dispatch').as('dispatch'),
          ])
          .executeTakeFirstOrThrow();
        if (moved.after === null) return { ...moved, descendants: [] };
        const descendants = await trx
          .updateTable('runner.runs')
          .set((eb) => ({
            status: 'queued',
            wake_at: null,
            ...resumedDispatch(eb),
            claims: 0,
          }))
          .where('id', 'in', descendantsOf(trx, organizationId, [runId]))
          .where('status', '=', 'paused')
          .returning((eb) => ['id as runId', 'status', jobDispatch(eb)])
          .execute();
        return {
          ...moved,
          descendants: descendants.map(({ runId: id, status, dispatch }) => ({
            runId: id,
            status,
            job: dispatch === null ? null : { runId: id, dispatch },
          })),
        };
      },
      (moved) =>
        moved.after === null
          ? null
          : {
              action: 'run.resumed',
              resource: { type: 'run', id: runId, name: null },
              ...(moved.descendants.length > 0 ? { details: { childRuns: moved.descendants.length } } : {}),
            },
    );
    return {
      before: row.before,
      after: row.after,
      job: row.dispatch === null ? null : { runId, dispatch: row.dispatch },
      descendants: row.descendants,
      parent: parentOf(row),
    };
  }

  /**
   * Deleted workflows' unfinished runs become `terminated`; their token moves on, so a runner in the
   * middle of one is refused at its next checkpoint and stops. Each workflow is remembered as
   * terminated, under its lock taken exclusively, so a run whose start read the workflow before it
   * was deleted is either terminated here or never recorded (see `RunRepository.record`). The runs
   * they started (child runs, of any workflow) are terminated with them and answered after them.
   * Idempotent.
   */
  /**
   * Ends the workflows' scheduled runs still held for their due time (`heldBy: schedule`): they were
   * written a few seconds early and have not started; nothing else of the workflows is touched.
   * Answers the ids of the runs it ended.
   */
  async terminateScheduled(organizationId: string, workflowIds: readonly string[]): Promise<string[]> {
    const rows = await this.db
      .updateTable('runner.runs')
      .set((eb) => ({
        status: 'terminated',
        error:
          'The workflow was paused before this scheduled run was due: a paused workflow starts no scheduled runs.',
        finished_at: now(),
        release_at: null,
        lease_token: eb('lease_token', '+', 1),
      }))
      .where('organization_id', '=', organizationId)
      .where('workflow_id', 'in', workflowIds)
      .where('held_by', '=', sql.lit('schedule'))
      .where('status', '=', sql.lit('queued'))
      .returning('id')
      .execute();
    return rows.map((row) => row.id);
  }

  terminateForWorkflows(organizationId: string, workflowIds: readonly string[]): Promise<TerminatedRun[]> {
    return this.db.transaction().execute(async (trx) => {
      // In one order, so two terminations of overlapping workflows cannot deadlock.
      await trx
        .selectFrom((db) =>
          db
            .selectFrom(sql<{ id: string }>`unnest(${workflowIds}::text[])`.as('id'))
            .select('id.id')
            .distinct()
            .orderBy('id.id')
            .as('sorted'),
        )
        .select((eb) =>
          sql`pg_advisory_xact_lock(hashtext('workflow-runs:' || ${eb.ref('sorted.id')}))`.as('locked'),
        )
        .execute();
      // A statement of its own: its snapshot includes every run recorded before the locks were granted.
      const terminated = await trx
        .with('remembered', (db) =>
          db
            .insertInto('runner.terminated_workflows')
            .columns(['organization_id', 'workflow_id'])
            .expression(
              db.selectNoFrom((eb) => [
                eb.val(organizationId).as('organization_id'),
                sql<string>`unnest(${workflowIds}::text[])`.as('workflow_id'),
              ]),
            )
            .onConflict((oc) => oc.doNothing()),
        )
        .with('terminated', (db) =>
          db
            .updateTable('runner.runs')
            .set((eb) => ({
              status: 'terminated',
              finished_at: now(),
              wake_at: null,
              lease_expires_at: null,
              lease_token: eb('lease_token', '+', 1),
            }))
            .where('organization_id', '=', organizationId)
            .where('workflow_id', '=', sql<string>`ANY(${workflowIds}::text[])`)
            // A rollback under way finishes and ends as it says; a paused run would otherwise be resumed.
            .where('status', 'in', ['queued', 'running', 'waiting', 'paused', 'waitingForPause'])
            .returning(['id', 'parent_run_id', 'parent_node_id']),
        )
        .with('unfinished_steps', (db) =>
          db
            .updateTable('runner.run_steps')
            .set({
              status: 'error',
              wake_at: null,
              error: 'The run was terminated because its workflow was deleted.',
            })
            .where('run_id', 'in', db.selectFrom('terminated').select('terminated.id'))
            .where('status', 'in', ['running', 'waiting']),
        )
        .selectFrom('terminated')
        .select([
          'terminated.id',
          'terminated.parent_run_id as parentRunId',
          'terminated.parent_node_id as parentNodeId',
        ])
        .execute();
      if (terminated.length === 0) return [];
      // Runs they started (a called workflow's, a loop's iterations) stop with them.
      const descendants = await this.terminateDescendants(
        trx,
        organizationId,
        terminated.map((run) => run.id),
        'The run it was started under was terminated because its workflow was deleted.',
      );
      return [
        ...terminated,
        ...descendants.map(({ runId }) => ({ id: runId, parentRunId: null, parentNodeId: null })),
      ];
    });
  }
}
