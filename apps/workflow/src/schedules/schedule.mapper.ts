import type { Insertable, Selectable } from 'kysely';

import type { WorkflowSchedules } from '../workflow.tables.js';

/** A schedule trigger of a live, unpaused version and the next time it is due. */
export interface ScheduleRecord {
  workflowId: string;
  triggerNodeId: string;
  organizationId: string;
  version: number;
  cron: string;
  timeZone: string;
  nextRunAt: Date;
  /** A scheduler is sending the run due at `nextRunAt` until then (or died doing it). */
  claimedUntil: Date | null;
}

export function toScheduleRecord(row: Selectable<WorkflowSchedules>): ScheduleRecord {
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

export function toScheduleRow(schedule: ScheduleRecord): Insertable<WorkflowSchedules> {
  return {
    workflow_id: schedule.workflowId,
    trigger_node_id: schedule.triggerNodeId,
    organization_id: schedule.organizationId,
    version: schedule.version,
    cron: schedule.cron,
    time_zone: schedule.timeZone,
    next_run_at: schedule.nextRunAt,
    claimed_until: schedule.claimedUntil,
  };
}
