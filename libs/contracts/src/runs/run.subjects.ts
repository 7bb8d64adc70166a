import { subject } from '../subjects.js';

export const RunnerSubjects = {
  /** Starts a run: `StartRunRequest` → WorkflowRun. Used by the gateway (api) and workflow (schedule). */
  runsStart: subject('runner.runs.start'),
  runsList: subject('runner.runs.list'),
  runsGet: subject('runner.runs.get'),
  /** A workflow was deleted: its unfinished runs become `terminated`. `{workflowId}` → `{terminated: number}`. */
  runsTerminateForWorkflow: subject('runner.runs.terminate-for-workflow'),
} as const;
