import type { Diagram } from '#contracts';
import type { Insertable, Selectable } from 'kysely';

import type { WorkflowVersions } from '../workflow.tables.js';

/** A published version: the draft as it was published, never changed. */
export interface WorkflowVersionRecord {
  id: string;
  workflowId: string;
  number: number;
  timeZone: string;
  diagram: Diagram;
  publishedBy: string | null;
  publishedAt: Date;
}

export type NewWorkflowVersion = Pick<
  WorkflowVersionRecord,
  'workflowId' | 'number' | 'timeZone' | 'diagram' | 'publishedBy'
>;

export function toWorkflowVersionRecord(row: Selectable<WorkflowVersions>): WorkflowVersionRecord {
  return {
    id: row.id,
    workflowId: row.workflow_id,
    number: row.number,
    timeZone: row.time_zone,
    diagram: row.diagram,
    publishedBy: row.published_by,
    publishedAt: row.published_at,
  };
}

export function toWorkflowVersionInsert(
  id: string,
  publishedAt: Date,
  version: NewWorkflowVersion,
): Insertable<WorkflowVersions> {
  return {
    id,
    workflow_id: version.workflowId,
    number: version.number,
    time_zone: version.timeZone,
    diagram: JSON.stringify(version.diagram),
    published_by: version.publishedBy,
    published_at: publishedAt,
  };
}
