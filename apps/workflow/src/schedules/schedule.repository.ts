import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

import type { Transaction } from '../transaction.js';

import { WorkflowEntity } from '../workflows/workflow.entity.js';
import { ScheduleEntity } from './schedule.entity.js';

@Injectable()
export class ScheduleRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private repo(manager?: Transaction) {
    return (manager ?? this.dataSource.manager).getRepository(ScheduleEntity);
  }

  /** Locks the workflow's rows, so a rebuild waits for a scheduler that is firing one of them. */
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
   * Claims up to `limit` rows due at `now` for one transaction. SKIP LOCKED lets every replica poll
   * at once: each row is held by one of them, the others pass it by. Paused workflows have no rows;
   * the join is a second guard against a pause that raced a rebuild, and keeps a deleted workflow's
   * rows, which go only when it is purged, from firing.
   */
  async withDue(
    now: Date,
    limit: number,
    work: (due: ScheduleEntity[], manager: Transaction) => Promise<void>,
  ): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const due = await this.repo(manager)
        .createQueryBuilder('schedule')
        .innerJoin(WorkflowEntity, 'workflow', 'workflow.id = schedule.workflow_id')
        .where('schedule.next_run_at <= :now', { now })
        .andWhere('workflow.paused_at IS NULL AND workflow.deleted_at IS NULL')
        .orderBy('schedule.next_run_at', 'ASC')
        .limit(limit)
        .setLock('pessimistic_write', undefined, ['schedule'])
        .setOnLocked('skip_locked')
        .getMany();
      if (due.length > 0) await work(due, manager);
      return due.length;
    });
  }

  async advance(row: ScheduleEntity, next: Date | null, manager: Transaction): Promise<void> {
    const key = { workflowId: row.workflowId, triggerNodeId: row.triggerNodeId };
    if (next === null) await this.repo(manager).delete(key);
    else await this.repo(manager).update(key, { nextRunAt: next });
  }
}
