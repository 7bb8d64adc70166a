import type { PageQueryDto } from '../common/page.dto.js';
import type { RunStatus } from './run-status.js';

/** `RunnerSubjects.runsList`. */
export interface ListRunsRequest {
  workflowId: string;
  query: PageQueryDto;
}

/** `RunnerSubjects.runsGet`. */
export interface GetRunRequest {
  id: string;
}

/** `RunnerSubjects.runsTerminateForWorkflow`, sent by workflow when it deletes a workflow. */
export interface TerminateRunsRequest {
  workflowId: string;
}

export interface TerminateRunsReply {
  terminated: number;
}

/**
 * Published on core NATS (`RunnerSubjects.runFinished`) when a run ends (`complete`, `errored`). It
 * is a notification, not a record: a listener that misses one reads the run.
 */
export interface RunFinishedEvent {
  runId: string;
  organizationId: string;
  workflowId: string;
  status: RunStatus;
  at: string;
}
