import type { Diagram } from '#contracts';
import type { Insertable, Selectable, Updateable } from 'kysely';

import type { WorkflowVersions, WorkflowWorkflows } from '../workflow.tables.js';

/** A workflow that is not deleted, as the service reads it. */
export interface WorkflowRecord {
  id: string;
  organizationId: string;
  projectId: string;
  name: string;
  description: string | null;
  /** The draft. */
  diagram: Diagram;
  /** The live version's number: always the newest version, null until the first publish. */
  publishedVersion: number | null;
  pausedAt: Date | null;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export type NewWorkflow = Pick<
  WorkflowRecord,
  'organizationId' | 'projectId' | 'name' | 'description' | 'diagram' | 'createdBy'
>;

export type WorkflowChanges = Partial<
  Pick<WorkflowRecord, 'name' | 'description' | 'diagram' | 'publishedVersion' | 'pausedAt'>
>;

/** What a run start needs of a workflow and its live version, read together. */
export interface RunTargetRecord {
  id: string;
  name: string;
  projectId: string;
  pausedAt: Date | null;
  publishedVersion: number | null;
  /** The live version's; null when the workflow was never published. */
  timeZone: string | null;
  /** The draft, the live version's diagram, or null when the caller said it holds that version. */
  diagram: Diagram | null;
}

/** The columns the run start reads (`WorkflowRepository.findRunTarget`): the version's are left joined. */
export type RunTargetRow = Pick<
  Selectable<WorkflowWorkflows>,
  'id' | 'name' | 'project_id' | 'paused_at' | 'published_version'
> & {
  time_zone: Selectable<WorkflowVersions>['time_zone'] | null;
  diagram: Diagram | null;
};

export function toWorkflowRecord(row: Selectable<WorkflowWorkflows>): WorkflowRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    projectId: row.project_id,
    name: row.name,
    description: row.description,
    diagram: row.diagram,
    publishedVersion: row.published_version,
    pausedAt: row.paused_at,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toWorkflowInsert(id: string, workflow: NewWorkflow): Insertable<WorkflowWorkflows> {
  return {
    id,
    organization_id: workflow.organizationId,
    project_id: workflow.projectId,
    name: workflow.name,
    description: workflow.description,
    diagram: JSON.stringify(workflow.diagram),
    created_by: workflow.createdBy,
  };
}

/** Only the columns `changes` names, so an update writes nothing it was not asked to. */
export function toWorkflowUpdate(changes: WorkflowChanges): Updateable<WorkflowWorkflows> {
  const { name, description, diagram, publishedVersion, pausedAt } = changes;
  return {
    ...(name === undefined ? {} : { name }),
    ...(description === undefined ? {} : { description }),
    ...(diagram === undefined ? {} : { diagram: JSON.stringify(diagram) }),
    ...(publishedVersion === undefined ? {} : { published_version: publishedVersion }),
    ...(pausedAt === undefined ? {} : { paused_at: pausedAt }),
  };
}

export function toRunTargetRecord(row: RunTargetRow): RunTargetRecord {
  return {
    id: row.id,
    name: row.name,
    projectId: row.project_id,
    pausedAt: row.paused_at,
    publishedVersion: row.published_version,
    timeZone: row.time_zone,
    diagram: row.diagram,
  };
}
