import { Type } from 'class-transformer';
import { IsObject, IsString, MaxLength, ValidateNested } from 'class-validator';

import { PageQueryDto } from '../common/page.dto.js';
import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import type { RunStatus } from './run-status.js';

/** `RunnerSubjects.runsList`. */
export class ListRunsRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  workflowId!: string;

  @IsObject()
  @ValidateNested()
  @Type(() => PageQueryDto)
  query!: PageQueryDto;
}

/** `RunnerSubjects.runsTerminateForWorkflow`, sent by workflow when it deletes a workflow. */
export class TerminateRunsRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  workflowId!: string;
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
