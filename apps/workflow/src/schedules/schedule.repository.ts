import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

import type { Transaction } from '../transaction.js';

import { ScheduleEntity } from './schedule.entity.js';

@Injectable()
export class ScheduleRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private repo(manager?: Transaction) {
    return (manager ?? this.dataSource.manager).getRepository(ScheduleEntity);
  }

  /** Locks the workflow's rows, so a rebuild and a scheduler's claim of them take turns. */
  findForWorkflowForUpdate(workflowId: string, manager: Transaction): Promise<ScheduleEntity[]> {
    return this.repo(manager)
      .createQueryBuilder('schedule')
      .setLock('pessimistic_write')
      .where('schedule.workflow_id = :workflowId', { workflowId })
      .getMany();
  }

  async replaceForWorkflow(workflowId: string, rows: ScheduleEntity[], manager: Transaction): Promise<void> {
    await this.repo(manager).delete({ workflowId });
    if (rows.length > 0) await this.repo(manager).insert(rows);
  }

  async deleteForWorkflow(workflowId: string, manager?: Transaction): Promise<void> {
    await this.repo(manager).delete({ workflowId });
  }

  async nextRunAt(workflowId: string): Promise<Date | null> {
    const row = await this.repo()
      .createQueryBuilder('schedule')
      .select('min(schedule.next_run_at)', 'next')
      .where('schedule.workflow_id = :workflowId', { workflowId })
      .getRawOne<{ next: Date | null }>();
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
  async claimDue(now: Date, limit: number, leaseMs: number): Promise<ScheduleEntity[]> {
    const [rows] = (await this.dataSource.query(
      `UPDATE workflow.schedules s SET claimed_until = now() + make_interval(secs => $3 / 1000.0)
       FROM (SELECT s.workflow_id, s.trigger_node_id FROM workflow.schedules s
             JOIN workflow.workflows w ON w.id = s.workflow_id
             WHERE s.next_run_at <= $1 AND (s.claimed_until IS NULL OR s.claimed_until < now())
               AND w.paused_at IS NULL AND w.deleted_at IS NULL
             ORDER BY s.next_run_at LIMIT $2 FOR UPDATE OF s SKIP LOCKED) due
       WHERE s.workflow_id = due.workflow_id AND s.trigger_node_id = due.trigger_node_id
       RETURNING s.workflow_id, s.trigger_node_id, s.organization_id, s.version, s.cron, s.time_zone,
         s.next_run_at, s.claimed_until`,
      [now, limit, leaseMs],
    )) as [ScheduleRow[], number];
    return rows.map(toSchedule);
  }

  /**
   * The claimed due time is dealt with: the row moves to `next` (or goes, when there is none) and its
   * claim ends. A row that no longer holds that due time (a publish rebuilt it, a pause or delete
   * removed it) is left as it is.
   */
  async advance(row: ScheduleEntity, next: Date | null): Promise<void> {
    if (next === null) {
      await this.dataSource.query(
        `DELETE FROM workflow.schedules WHERE ${CLAIMED_DUE_TIME}`,
        claimedDueTime(row),
      );
    } else {
      await this.dataSource.query(
        `UPDATE workflow.schedules SET next_run_at = $4, claimed_until = NULL WHERE ${CLAIMED_DUE_TIME}`,
        [...claimedDueTime(row), next],
      );
    }
  }

  /** The claimed due time could not be sent: it stays due, for the next claim. */
  async release(row: ScheduleEntity): Promise<void> {
    await this.dataSource.query(
      `UPDATE workflow.schedules SET claimed_until = NULL WHERE ${CLAIMED_DUE_TIME}`,
      claimedDueTime(row),
    );
  }
}

/** The row of a claimed due time, if it still holds it: compared as JavaScript reads it, to the millisecond. */
const CLAIMED_DUE_TIME = `workflow_id = $1 AND trigger_node_id = $2
  AND date_trunc('milliseconds', next_run_at) = $3`;

function claimedDueTime(row: ScheduleEntity): unknown[] {
  return [row.workflowId, row.triggerNodeId, row.nextRunAt];
}

/** A schedules row as `RETURNING` spells it. */
interface ScheduleRow {
  workflow_id: string;
  trigger_node_id: string;
  organization_id: string;
  version: number;
  cron: string;
  time_zone: string;
  next_run_at: Date;
  claimed_until: Date | null;
}

function toSchedule(row: ScheduleRow): ScheduleEntity {
  return {
    workflowId: row.workflow_id,
    triggerNodeId: row.trigger_node_id,
    organizationId: row.organization_id,
    version: row.version,
    cron: row.cron,
    timeZone: row.time_zone,
    nextRunAt: row.next_run_at,
    claimedUntil: row.claimed_until,
  };
}
