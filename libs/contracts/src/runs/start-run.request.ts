import type { ErrorBody } from '#common';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsISO8601,
  IsOptional,
  IsString,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';

import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import { DIAGRAM_ID_MAX_LENGTH } from '../workflows/diagram.js';
import { RunInputField } from './run-input.js';

export const RUN_TRIGGERS = ['manual', 'api', 'schedule', 'event'] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** The message behind `RunnerSubjects.runsStart`, sent with the caller's principal. */
export class StartRunRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  workflowId!: string;

  @RunInputField({ optional: false })
  input!: string;

  @IsBoolean()
  draft!: boolean;

  @IsOptional()
  @IsString()
  @MaxLength(DIAGRAM_ID_MAX_LENGTH)
  triggerNodeId?: string;

  @IsIn(RUN_TRIGGERS)
  trigger!: RunTrigger;

  /**
   * Makes starting idempotent within the organization for 24 hours: the `Idempotency-Key` header of
   * an API start, or `schedule:<workflowId>:<triggerNodeId>:<due ISO time>` for a scheduled one. The
   * key stands for this workflow and this body: sent again with others, it is `idempotency_key_reused`.
   */
  @IsOptional()
  @IsString()
  @MinLength(1, { message: `the Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters` })
  @MaxLength(IDEMPOTENCY_KEY_MAX_LENGTH, {
    message: `the Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`,
  })
  idempotencyKey?: string;

  /**
   * Holds the run, once written, until this time (`heldBy: schedule`): the scheduler writes a due
   * time's run a little before it is due (`SCHEDULE_LEAD_MS`), so that thousands due at the same
   * minute all go on at that minute. A time already past holds nothing. Only a start of many
   * (`runsStartMany`) takes it; a single start with it is refused.
   */
  @IsOptional()
  @IsISO8601({ strict: true })
  notBefore?: string;
}

/** The runner's reply: the run, and whether it already existed for the idempotency key. */
export interface StartRunReply<TRun = unknown> {
  run: TRun;
  replayed: boolean;
}

/** Starts sent in one `RunnerSubjects.runsStartMany` request, at most. */
export const STARTS_AT_ONCE_MAX = 500;

/**
 * Many starts of one organization's published workflows in one request (the scheduler's due times,
 * an event's fan-out): each must carry an idempotency key that names what it starts for (a due time,
 * an event), so a start sent again is answered with the run it made, and a key is never reused with
 * another request.
 */
export class StartRunsRequest {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(STARTS_AT_ONCE_MAX)
  @ValidateNested({ each: true })
  @Type(() => StartRunRequest)
  starts!: StartRunRequest[];
}

/** What became of one start of a `StartRunsRequest`, in its place: a run, or the error a single start would have thrown. */
export type StartRunsResult = { runId: string; replayed: boolean } | ErrorBody;

export interface StartRunsReply {
  results: StartRunsResult[];
}
