import { DomainException } from '#common';
import {
  DEFAULT_TIME_ZONE,
  type RunTarget,
  type WorkflowDetailDto,
  type WorkflowDto,
  type WorkflowSummaryDto,
  type WorkflowVersionDto,
} from '#contracts';

import type { WorkflowVersionRecord } from './workflow-version.mapper.js';
import type { RunTargetRecord, WorkflowRecord } from './workflow.mapper.js';

export function toWorkflowSummaryDto(workflow: WorkflowRecord): WorkflowSummaryDto {
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

export function toWorkflowDto(workflow: WorkflowRecord): WorkflowDto {
  return { ...toWorkflowSummaryDto(workflow), diagram: workflow.diagram };
}

export function toWorkflowDetailDto(workflow: WorkflowRecord, nextRunAt: Date | null): WorkflowDetailDto {
  return { ...toWorkflowDto(workflow), nextRunAt: nextRunAt?.toISOString() ?? null };
}

export function toWorkflowVersionDto(version: WorkflowVersionRecord): WorkflowVersionDto {
  return {
    id: version.id,
    workflowId: version.workflowId,
    number: version.number,
    timeZone: version.timeZone,
    publishedBy: version.publishedBy,
    publishedAt: version.publishedAt.toISOString(),
  };
}

/**
 * What a run executes: the draft (in the live version's time zone) or the live version, which a
 * workflow never published does not have.
 */
export function toRunTarget(workflow: RunTargetRecord, draft: boolean): RunTarget {
  const common = {
    workflowId: workflow.id,
    workflowName: workflow.name,
    projectId: workflow.projectId,
    pausedAt: workflow.pausedAt?.toISOString() ?? null,
  };
  if (draft) {
    return {
      ...common,
      version: null,
      timeZone: workflow.timeZone ?? DEFAULT_TIME_ZONE,
      diagram: workflow.diagram,
    };
  }
  if (workflow.publishedVersion === null || workflow.timeZone === null) {
    throw new DomainException(
      'not_published',
      'The workflow has never been published: publish it, or run the draft with draft: true.',
    );
  }
  return {
    ...common,
    version: workflow.publishedVersion,
    timeZone: workflow.timeZone,
    diagram: workflow.diagram,
  };
}
