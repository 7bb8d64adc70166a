import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsObject,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';

import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import { WorkflowRunsQueryDto } from './run-filter.dto.js';
import type { RunStatus } from './run-status.js';

/** `RunnerSubjects.runsList`. */
export class ListRunsRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  workflowId!: string;

  @IsObject()
  @ValidateNested()
  @Type(() => WorkflowRunsQueryDto)
  query!: WorkflowRunsQueryDto;
}

/** Workflows one termination request may name: a project's deleted workflows go in batches of it. */
export const TERMINATE_BATCH_MAX = 500;

/** `RunnerSubjects.runsTerminateForWorkflows`, sent by workflow once it has deleted workflows. */
export class TerminateRunsRequest {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(TERMINATE_BATCH_MAX)
  @IsString({ each: true })
  @MaxLength(MESSAGE_ID_MAX_LENGTH, { each: true })
  workflowIds!: string[];
}

/** `RunnerSubjects.runsWake`: a decision came for the run's waiting step; it should run now. */
export class WakeStepRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  runId!: string;

  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  nodeId!: string;
}

/**
 * `woken` false: the step is still running (it has not yet come back as waiting, or runs now); ask
 * again shortly. True when it was woken or has nothing to wake (finished, terminated, gone).
 */
export interface WakeStepReply {
  woken: boolean;
}

export interface TerminateRunsReply {
  terminated: number;
}

/**
 * Published on core NATS (`RunnerSubjects.runChanged`, on `….run-changed.<runId>`) after every write
 * that changes a run or its steps, with the run's status after that write. It is a notice, not a
 * record: it carries no steps, so it stays a few dozen bytes, and a listener reads the run to learn
 * more. A listener that may have missed one (a reconnect) reads the run again.
 */
export interface RunChangedEvent {
  runId: string;
  status: RunStatus;
}
