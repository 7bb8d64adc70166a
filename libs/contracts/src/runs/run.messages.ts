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
