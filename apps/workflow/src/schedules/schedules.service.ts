import { type Diagram, nextScheduleTime } from '#contracts';
import { Injectable } from '@nestjs/common';

import type { Transaction } from '../transaction.js';
import type { ScheduleRecord } from './schedule.mapper.js';
import { ScheduleRepository } from './schedule.repository.js';
import { scheduleTriggers } from './schedule.util.js';

export interface LiveSchedule {
  workflowId: string;
  organizationId: string;
  version: number;
  timeZone: string;
  diagram: Diagram;
}

/** Keeps the schedules table equal to the schedule triggers of each live, unpaused version. */
@Injectable()
export class SchedulesService {
  constructor(private readonly schedules: ScheduleRepository) {}

  /**
   * Rebuilds the rows of one workflow inside the caller's transaction. A trigger whose node, cron and
   * time zone did not change keeps its due time, so a publish cannot drop a run that is about to
   * fire; everything else is due at its next time from now.
   */
  async rebuild(live: LiveSchedule, manager: Transaction, now = new Date()): Promise<void> {
    const existing = await this.schedules.findForWorkflowForUpdate(live.workflowId, manager);
    const rows = scheduleTriggers(live.diagram).flatMap((trigger): ScheduleRecord[] => {
      const kept = existing.find(
        (row) =>
          row.triggerNodeId === trigger.nodeId && row.cron === trigger.cron && row.timeZone === live.timeZone,
      );
      const nextRunAt = kept?.nextRunAt ?? nextScheduleTime(trigger.cron, live.timeZone, now);
      if (!nextRunAt) return [];
      return [
        {
          workflowId: live.workflowId,
          triggerNodeId: trigger.nodeId,
          organizationId: live.organizationId,
          version: live.version,
          cron: trigger.cron,
          timeZone: live.timeZone,
          nextRunAt,
          // A scheduler sending this due time keeps its claim, so no other replica sends it too.
          claimedUntil: kept?.claimedUntil ?? null,
        },
      ];
    });
    await this.schedules.replaceForWorkflow(live.workflowId, rows, manager);
  }

  /** Pause: nothing fires, and nothing due while paused is kept for later. */
  clear(workflowId: string, manager: Transaction): Promise<void> {
    return this.schedules.deleteForWorkflow(workflowId, manager);
  }

  nextRunAt(workflowId: string): Promise<Date | null> {
    return this.schedules.nextRunAt(workflowId);
  }
}
