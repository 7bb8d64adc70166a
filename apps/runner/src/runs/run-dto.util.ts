import { traceIdOf } from '#common';
import type { RunStepDto, WorkflowRunDto, WorkflowRunSummaryDto } from '#contracts';

import type { RunWithSteps, StepRecord } from '../engine/run-state.js';
import type { RunSummaryRecord } from './run-list.repository.js';
import { visibleStatus } from './run-status.util.js';

export function toRunSummaryDto(run: RunSummaryRecord, now = new Date()): WorkflowRunSummaryDto {
  return {
    id: run.id,
    workflowId: run.workflowId,
    version: run.version,
    trigger: run.trigger,
    triggerNodeId: run.triggerNodeId,
    status: visibleStatus(run.status, run.createdAt, now),
    createdBy: run.createdBy,
    createdAt: run.createdAt.toISOString(),
    // Only on a child run, like `rerunOf` on a rerun: no answer of any other run changes.
    ...(run.parentRunId === null ? {} : { parentRunId: run.parentRunId }),
    ...(run.parentNodeId === null ? {} : { parentNodeId: run.parentNodeId }),
    ...(run.iteration === null ? {} : { iteration: run.iteration }),
  };
}

export function toRunStepDto(step: StepRecord): RunStepDto {
  return {
    nodeId: step.nodeId,
    status: step.status,
    via: step.via,
    input: step.input,
    output: step.output,
    error: step.error,
    ms: step.ms,
    startedAt: step.startedAt.toISOString(),
    ...(step.compensation ? { compensation: true as const } : {}),
    ...(step.carriedFrom === null ? {} : { carriedFrom: step.carriedFrom }),
    // Only on a trimmed step (docs/retention.md): no answer of a step kept in full changes.
    ...(step.payloadTrimmedAt === null ? {} : { trimmed: true as const }),
  };
}

export function toWorkflowRunDto({ run, steps }: RunWithSteps, now = new Date()): WorkflowRunDto {
  const traceId = traceIdOf(run.traceParent);
  return {
    ...toRunSummaryDto(run, now),
    input: run.input,
    reply: run.reply,
    error: run.error,
    steps: [...steps].sort((a, b) => a.position - b.position).map(toRunStepDto),
    diagram: run.diagram,
    ...(run.rerunOf === null ? {} : { rerunOf: run.rerunOf }),
    ...(run.errorOfRunId === null ? {} : { errorOfRunId: run.errorOfRunId }),
    // Only while a gate holds it (docs/flow-control.md): no answer of any other run changes.
    ...(run.heldBy === null || run.status !== 'queued' ? {} : { heldBy: run.heldBy }),
    ...(run.heldKey === null || run.status !== 'queued' ? {} : { heldKey: run.heldKey }),
    ...(run.errorWorkflow === null ? {} : { errorWorkflow: run.errorWorkflow }),
    // Only on a traced run, like `rerunOf`: with tracing off, no answer of a run changes.
    ...(traceId === null ? {} : { traceId }),
    ...(run.diagramTrimmedAt === null ? {} : { diagramTrimmed: true as const }),
  };
}
