import { subject } from '../subjects.js';

export const RunnerSubjects = {
  /** Starts a run: `StartRunRequest` → `StartRunReply<WorkflowRunDto>`. Sent by the gateway (api) and workflow (schedule). */
  runsStart: subject('runner.runs.start'),
  /** `ListRunsRequest` → page of WorkflowRunSummaryDto, newest first. */
  runsList: subject('runner.runs.list'),
  /** `GetRunRequest` → WorkflowRunDto. */
  runsGet: subject('runner.runs.get'),
  /** A workflow was deleted: its unfinished runs become `terminated`. `{workflowId}` → `{terminated: number}`. */
  runsTerminateForWorkflow: subject('runner.runs.terminate-for-workflow'),
  /** Core NATS notification `RunFinishedEvent` when a run ends; nothing depends on receiving it. */
  runFinished: subject('runner.events.run-finished'),
} as const;
