import { InjectKysely } from '#persistence';
import { Injectable } from '@nestjs/common';
import { type ExpressionBuilder, type Kysely, sql } from 'kysely';

import type { DB } from '../workflow.tables.js';

import { type ScheduleRecord, toScheduleRecord, toScheduleRow } from './schedule.mapper.js';

@Injectable()
export class ScheduleRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /** Locks the workflow's rows, so a rebuild and a scheduler's claim of them take turns. */
  async findForWorkflowForUpdate(workflowId: string, trx: Kysely<DB>): Promise<ScheduleRecord[]> {
    const rows = await trx
      .selectFrom('workflow.schedules')
      .selectAll()
      .where('workflow_id', '=', workflowId)
      .forUpdate()
      .execute();
    return rows.map(toScheduleRecord);
  }

  async replaceForWorkflow(workflowId: string, rows: ScheduleRecord[], trx: Kysely<DB>): Promise<void> {
    await this.deleteForWorkflow(workflowId, trx);
    if (rows.length > 0) await trx.insertInto('workflow.schedules').values(rows.map(toScheduleRow)).execute();
  }

  async deleteForWorkflow(workflowId: string, db: Kysely<DB> = this.db): Promise<void> {
    await db.deleteFrom('workflow.schedules').where('workflow_id', '=', workflowId).execute();
  }

  async nextRunAt(workflowId: string): Promise<Date | null> {
    const row = await this.db
      .selectFrom('workflow.schedules')
      .select((eb) => eb.fn.min<Date | null>('next_run_at').as('next'))
      .where('workflow_id', '=', workflowId)
      .executeTakeFirst();
    return row?.next ?? null;
  }

  /**
   * Claims up to `limit` rows due at `now` that no scheduler holds: each is leased for `leaseMs` and
   * keeps its due time until `advance` or `release`. The claim is one statement that commits at once,
   * so nothing is locked while the runs are sent; SKIP LOCKED lets every replica claim at the same
   * time, each row going to one of them. Paused workflows have no rows; the join is a second guard
   * against a pause that raced a rebuild, and keeps a deleted workflow's rows, which go only when it
   * is purged, from firing.
   */
  async claimDue(now: Date, limit: number, leaseMs: number): Promise<ScheduleRecord[]> {
    const due = this.db
      .selectFrom('workflow.schedules as s')
      .innerJoin('workflow.workflows as w', 'w.id', 's.workflow_id')
      .select(['s.workflow_id', 's.trigger_node_id'])
      .where('s.next_run_at', '<=', now)
      .where((eb) => eb.or([eb('s.claimed_until', 'is', null), eb('s.claimed_until', '<', sql<Date>`now()`)]))
      .where('w.paused_at', 'is', null)
      .where('w.deleted_at', 'is', null)
      .orderBy('s.next_run_at')
      .limit(limit)
      .forUpdate('s')
      .skipLocked();
    const rows = await this.db
      .updateTable('workflow.schedules as s')
      .set({ claimed_until: sql<Date>`now() + make_interval(secs => ${leaseMs} / 1000.0)` })
      .from(due.as('due'))
      .whereRef('s.workflow_id', '=', 'due.workflow_id')
      .whereRef('s.trigger_node_id', '=', 'due.trigger_node_id')
      .returning([
        's.workflow_id',
        's.trigger_node_id',
        's.organization_id',
        's.version',
        's.cron',
        's.time_zone',
        's.next_run_at',
        's.claimed_until',
      ])
      .execute();
    return rows.map(toScheduleRecord);
  }

  /**
   * The claimed due times are dealt with, in one statement: each row moves to its `next` (or goes,
   * when there is none) and its claim ends. A row that no longer holds the due time it was claimed
   * at (a publish rebuilt it, a pause or delete removed it, it was settled already) is left as it is.
   */
  async advance(moves: ReadonlyArray<{ row: ScheduleRecord; next: Date | null }>): Promise<void> {
    if (moves.length === 0) return;
    const column = <T>(value: (move: (typeof moves)[number]) => T) => moves.map(value);
    await sql`
      WITH moves AS (
        SELECT * FROM unnest(
          ${column((move) => move.row.workflowId)}::uuid[],
          ${column((move) => move.row.triggerNodeId)}::text[],
          ${column((move) => move.row.nextRunAt.toISOString())}::timestamptz[],
          ${column((move) => move.next?.toISOString() ?? null)}::timestamptz[]
        ) AS m(workflow_id, trigger_node_id, due, next)
      ),
      ended AS (
        DELETE FROM workflow.schedules s USING moves m
         WHERE s.workflow_id = m.workflow_id AND s.trigger_node_id = m.trigger_node_id
           AND date_trunc('milliseconds', s.next_run_at) = m.due AND m.next IS NULL
      )
      UPDATE workflow.schedules s SET next_run_at = m.next, claimed_until = NULL
        FROM moves m
       WHERE s.workflow_id = m.workflow_id AND s.trigger_node_id = m.trigger_node_id
         AND date_trunc('milliseconds', s.next_run_at) = m.due AND m.next IS NOT NULL
    `.execute(this.db);
  }

  /** The claimed due time could not be sent: it stays due, for the next claim. */
  async release(row: ScheduleRecord): Promise<void> {
    await this.db
      .updateTable('workflow.schedules')
      .set({ claimed_until: null })
      .where(holdsClaimedDueTime(row))
      .execute();
  }
}

/** The row of a claimed due time, if it still holds it: compared as JavaScript reads it, to the millisecond. */
function holdsClaimedDueTime(row: ScheduleRecord) {
  return (eb: ExpressionBuilder<DB, 'workflow.schedules'>) =>
    eb.and([
      eb('workflow_id', '=', row.workflowId),
      eb('trigger_node_id', '=', row.triggerNodeId),
      eb(eb.fn('date_trunc', [sql.lit('milliseconds'), 'next_run_at']), '=', row.nextRunAt),
    ]);
}
