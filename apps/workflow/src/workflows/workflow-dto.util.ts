import type { WorkflowDetailDto, WorkflowDto, WorkflowSummaryDto, WorkflowVersionDto } from '#contracts';

import type { WorkflowVersionEntity } from './workflow-version.entity.js';
import type { WorkflowEntity } from './workflow.entity.js';

export function toWorkflowSummaryDto(workflow: WorkflowEntity): WorkflowSummaryDto {
  return {
    id: workflow.id,
    projectId: workflow.projectId,
    name: workflow.name,
    description: workflow.description,
    publishedVersion: workflow.publishedVersion,
    pausedAt: workflow.pausedAt?.toISOString() ?? null,
    createdBy: workflow.createdBy,
    createdAt: workflow.createdAt.toISOString(),
    updatedAt: workflow.updatedAt.toISOString(),
  };
}

export function toWorkflowDto(workflow: WorkflowEntity): WorkflowDto {
  return { ...toWorkflowSummaryDto(workflow), diagram: workflow.diagram };
}

export function toWorkflowDetailDto(workflow: WorkflowEntity, nextRunAt: Date | null): WorkflowDetailDto {
  return { ...toWorkflowDto(workflow), nextRunAt: nextRunAt?.toISOString() ?? null };
}

export function toWorkflowVersionDto(version: WorkflowVersionEntity): WorkflowVersionDto {
  return {
    id: version.id,
    workflowId: version.workflowId,
    number: version.number,
    timeZone: version.timeZone,
    publishedBy: version.publishedBy,
    publishedAt: version.publishedAt.toISOString(),
  };
}
