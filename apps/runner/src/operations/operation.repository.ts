import { OPERATION_FAILURES_LISTED, type OperationAction, type Principal } from '#contracts';
import { InjectKysely } from '#persistence';
import { Injectable } from '@nestjs/common';
import { type Kysely, sql } from 'kysely';

import type { DB } from '../runner.tables.js';
import { commonConditions, type RunFilter, statusBranches } from '../runs/run-filter.js';
import { toHeldOperation, toOperationRecord } from './operation.mapper.js';
import type {
  FailureRecord,
  HeldOperation,
  InterruptedTarget,
  OperationParams,
  OperationRecord,
} from './operation.record.js';

export interface NewOperation {
  id: string;
  organizationId: string;
  action: OperationAction;
  principal: Principal;
  workflowId: string | null;
  params: OperationParams;
}

/** How one target ended: acted on, refused by the action (with why), or to be tried again later. */
export type TargetOutcome =
  | { state: 'done'; resultId: string | null }
  | { state: 'failed'; code: string; message: string }
  | { state: 'pending' };

/** Matched more than an operation takes: nothing was recorded. */
export class TooManyTargets extends Error {}

/** Bulk operations and their targets (docs/runs.md, "Finding and acting on many runs"). */
@Injectable()
export class OperationRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /**
   * Records the operation with every run the filter matches now, in one transaction, so what it
   * acts on is fixed when it is accepted. Throws `TooManyTargets` past `max`.
   */
  createForRuns(
    operation: NewOperation,
    filter: RunFilter,
    max: number,
    now = new Date(),
  ): Promise<OperationRecord> {
    return this.create(operation, max, (tx) =>
      tx
        .insertInto('runner.operation_targets')
        .columns(['operation_id', 'target_id'])
        .expression((eb) =>
          eb
            .selectFrom('runner.runs')
            .select([
              sql<string>`${operation.id}::uuid`.as('operation_id'),
              sql<string>`id::text`.as('target_id'),
            ])
            .where((runs) => commonConditions(runs, operation.organizationId, filter))
            .where((runs) => {
              const branches = statusBranches(filter.statuses, now);
              return runs.or(branches.map((branch) => (branch === null ? runs.lit(true) : branch(runs))));
            })
            .limit(max + 1),
        )
        .executeTakeFirstOrThrow()
        .then((result) => Number(result.numInsertedOrUpdatedRows ?? 0)),
    );
  }

  /** Records the operation with the ids it was given (a bulk replay's events). */
  createForTargets(operation: NewOperation, targetIds: string[], max: number): Promise<OperationRecord> {
    return this.create(operation, max, async (tx) => {
      if (targetIds.length > max) return targetIds.length;
      if (targetIds.length === 0) return 0;
      const result = await tx
        .insertInto('runner.operation_targets')
        .columns(['operation_id', 'target_id'])
        .expression(
          tx
            .selectFrom(sql<{ target_id: string }>`unnest(${targetIds}::text[])`.as<'t'>(sql`t(target_id)`))
            .select([sql<string>`${operation.id}::uuid`.as('operation_id'), 't.target_id']),
        )
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirstOrThrow();
      return Number(result.numInsertedOrUpdatedRows ?? 0);
    });
  }

  private create(
    operation: NewOperation,
    max: number,
    recordTargets: (tx: Kysely<DB>) => Promise<number>,
  ): Promise<OperationRecord> {
    return this.db.transaction().execute(async (tx) => {
      await tx
        .insertInto('runner.operations')
        .values({
          id: operation.id,
          organization_id: operation.organizationId,
          action: operation.action,
          status: 'running',
          principal: JSON.stringify(operation.principal),
          workflow_id: operation.workflowId,
          params: JSON.stringify(operation.params),
          matched: 0,
        })
        .execute();
      const matched = await recordTargets(tx);
      if (matched > max) throw new TooManyTargets(`matched more than ${max}`);
      const row = await tx
        .updateTable('runner.operations')
        .set(matched === 0 ? { matched, status: 'complete', finished_at: sql<Date>`now()` } : { matched })
        .where('id', '=', operation.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return toOperationRecord(row);
    });
  }

  async find(
    organizationId: string,
    id: string,
  ): Promise<{ operation: OperationRecord; failures: FailureRecord[] } | null> {
    const row = await this.db
      .selectFrom('runner.operations')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return null;
    const failures = await this.db
      .selectFrom('runner.operation_targets')
      .select(['target_id as targetId', 'code', 'error', 'acted_at as at'])
      .where('operation_id', '=', id)
      .where('state', '=', sql.lit('failed'))
      .orderBy('acted_at')
      .orderBy('target_id')
      .limit(OPERATION_FAILURES_LISTED)
      .execute();
    return {
      operation: toOperationRecord(row),
      failures: failures.map((failure) => ({
        targetId: failure.targetId,
        code: failure.code ?? 'internal',
        message: failure.error ?? '',
        at: failure.at ?? row.updated_at,
      })),
    };
  }

  /**
   * Takes up to `limit` running operations whose lease is free, at most one per organization (its
   * least recently served), organizations least recently served first: one organization's many or
   * huge operations get one batch a tick like anyone else's. Skips what another runner is taking.
   */
  async claim(limit: number, leaseMs: number): Promise<HeldOperation[]> {
    const { rows } = await sql<{ id: string }>`
      WITH free AS (
        SELECT DISTINCT ON (organization_id) id, served_at
        FROM runner.operations
        WHERE status = 'running' AND (lease_expires_at IS NULL OR lease_expires_at < now())
        ORDER BY organization_id, served_at NULLS FIRST, id
      ), picked AS (
        SELECT o.id FROM runner.operations o JOIN free USING (id)
        WHERE o.status = 'running' AND (o.lease_expires_at IS NULL OR o.lease_expires_at < now())
        ORDER BY free.served_at NULLS FIRST, free.id
        LIMIT ${limit}
        FOR UPDATE OF o SKIP LOCKED
      )
      UPDATE runner.operations o
      SET lease_token = o.lease_token + 1,
          lease_expires_at = now() + make_interval(secs => ${leaseMs} / 1000.0),
          served_at = clock_timestamp()
      FROM picked WHERE o.id = picked.id
      RETURNING o.id`.execute(this.db);
    if (rows.length === 0) return [];
    const held = await this.db
      .selectFrom('runner.operations')
      .selectAll()
      .where(
        'id',
        'in',
        rows.map((row) => row.id),
      )
      .orderBy('served_at')
      .execute();
    return held.map(toHeldOperation);
  }

  /** Targets a previous holder began and never settled: it died or lost its lease mid-call. */
  async interrupted(operation: HeldOperation): Promise<InterruptedTarget[]> {
    const rows = await this.db
      .selectFrom('runner.operation_targets')
      .select(['target_id as targetId', 'acted_at as actedAt'])
      .where('operation_id', '=', operation.id)
      .where('state', '=', sql.lit('acting'))
      .orderBy('target_id', 'desc')
      .execute();
    return rows.map((row) => ({ targetId: row.targetId, actedAt: row.actedAt ?? new Date(0) }));
  }

  /**
   * Marks the next `limit` pending targets `acting` and answers them, newest first; committed before
   * any is acted on, so a holder that dies leaves them `acting`. Nothing when the lease was lost.
   */
  async begin(operation: HeldOperation, limit: number): Promise<string[]> {
    if (limit <= 0) return [];
    const rows = await this.db
      .updateTable('runner.operation_targets')
      .set((eb) => ({ state: 'acting', attempts: eb('attempts', '+', 1), acted_at: sql<Date>`now()` }))
      .where('operation_id', '=', operation.id)
      .where('target_id', 'in', (eb) =>
        eb
          .selectFrom('runner.operation_targets')
          .select('target_id')
          .where('operation_id', '=', operation.id)
          .where('state', '=', sql.lit('pending'))
          .orderBy('target_id', 'desc')
          .limit(limit),
      )
      .where(({ exists, selectFrom, lit }) =>
        exists(
          selectFrom('runner.operations as o')
            .select(lit(1).as('held'))
            .where('o.id', '=', operation.id)
            .where('o.lease_token', '=', operation.leaseToken),
        ),
      )
      .returning('target_id')
      .execute();
    return rows
      .map((row) => row.target_id)
      .sort()
      .reverse();
  }

  /** Tries so far of a target, this one included. */
  async attempts(operation: HeldOperation, targetId: string): Promise<number> {
    const row = await this.db
      .selectFrom('runner.operation_targets')
      .select('attempts')
      .where('operation_id', '=', operation.id)
      .where('target_id', '=', targetId)
      .executeTakeFirst();
    return row?.attempts ?? 0;
  }

  /**
   * Records how a target ended and counts it, in one statement, renewing the lease: only a target
   * still `acting` under this holder's lease changes, so a holder that lost its lease writes nothing
   * and no target is counted twice. False when the lease was lost.
   */
  async settle(
    operation: HeldOperation,
    targetId: string,
    outcome: TargetOutcome,
    leaseMs: number,
  ): Promise<boolean> {
    const { rows } = await sql<{ id: string }>`
      WITH target AS (
        UPDATE runner.operation_targets t
        SET state = ${outcome.state},
            result_id = ${outcome.state === 'done' ? outcome.resultId : null},
            code = ${outcome.state === 'failed' ? outcome.code : null},
            error = ${outcome.state === 'failed' ? outcome.message : null},
            acted_at = now()
        WHERE t.operation_id = ${operation.id} AND t.target_id = ${targetId} AND t.state = 'acting'
          AND EXISTS (SELECT 1 FROM runner.operations o WHERE o.id = ${operation.id} AND o.lease_token = ${operation.leaseToken})
        RETURNING t.state
      )
      UPDATE runner.operations
      SET done = done + (SELECT count(*) FROM target WHERE state = 'done'),
          failed = failed + (SELECT count(*) FROM target WHERE state = 'failed'),
          updated_at = now(),
          lease_expires_at = now() + make_interval(secs => ${leaseMs} / 1000.0)
      WHERE id = ${operation.id} AND lease_token = ${operation.leaseToken}
      RETURNING id`.execute(this.db);
    return rows.length === 1;
  }

  /**
   * Ends this holder's turn: `complete` when no target is left open, otherwise the lease is given
   * back so the next tick (of any runner) serves it in its turn.
   */
  async release(operation: HeldOperation): Promise<'complete' | 'running' | 'lost'> {
    const { rows } = await sql<{ status: 'complete' | 'running' }>`
      UPDATE runner.operations o
      SET status = CASE WHEN open.n = 0 THEN 'complete' ELSE 'running' END,
          finished_at = CASE WHEN open.n = 0 THEN now() ELSE NULL END,
          updated_at = now(),
          lease_expires_at = NULL
      FROM (SELECT count(*) AS n FROM (
              SELECT 1 FROM runner.operation_targets
              WHERE operation_id = ${operation.id} AND state IN ('pending', 'acting') LIMIT 1) open_targets) open
      WHERE o.id = ${operation.id} AND o.lease_token = ${operation.leaseToken} AND o.status = 'running'
      RETURNING o.status`.execute(this.db);
    return rows[0]?.status ?? 'lost';
  }

  /** The status of a run now, for a cancel whose holder died mid-call; null when it is not the organization's. */
  async runStatus(organizationId: string, runId: string): Promise<string | null> {
    const row = await this.db
      .selectFrom('runner.runs')
      .select('status')
      .where('organization_id', '=', organizationId)
      .where('id', '=', runId)
      .executeTakeFirst();
    return row?.status ?? null;
  }

  /** A rerun of `runId` made since `since`, for a rerun whose holder died mid-call. */
  async rerunSince(organizationId: string, runId: string, since: Date): Promise<string | null> {
    const row = await this.db
      .selectFrom('runner.runs')
      .select('id')
      .where('rerun_of', '=', runId)
      .where('organization_id', '=', organizationId)
      .where('created_at', '>=', since)
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    return row?.id ?? null;
  }
}
