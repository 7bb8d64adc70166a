import { Type } from 'class-transformer';
import { IsObject, IsString, MaxLength, ValidateNested } from 'class-validator';

import { OptionalTextField } from '../common/field.decorators.js';
import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import { DIAGRAM_ID_MAX_LENGTH } from '../workflows/diagram.js';
import { RunInputField } from './run-input.js';
import { OptionalBooleanField } from './start-run.dto.js';

export const CANCEL_REASON_MAX_LENGTH = 1000;

/** The body of `POST /api/v1/runs/{id}/cancel`; every field may be omitted. */
export class CancelRunDto {
  @OptionalTextField({
    max: CANCEL_REASON_MAX_LENGTH,
    description: "Why: kept in the run's `error` and in the message of every step the cancel stopped.",
  })
  reason?: string;

  @OptionalBooleanField(
    'Undo what the run did first: the run goes `rollingBack` and runs the `compensate` of each `done` action, newest first, then ends `terminated`.',
  )
  rollback?: boolean;
}

/** The body of `POST /api/v1/runs/{id}/rerun`; every field may be omitted. */
export class RerunRunDto {
  @OptionalTextField({
    min: 1,
    max: DIAGRAM_ID_MAX_LENGTH,
    description:
      'Run this node and everything downstream of it anew; the steps that do not depend on it are carried over `done` with their outputs. Without it (and without `input`), the rerun starts at the first failed step.',
  })
  fromNodeId?: string;

  /** A new trigger payload: the rerun starts from the trigger and carries nothing over. */
  @RunInputField({ optional: true })
  input?: string;
}

/** `RunnerSubjects.runsCancel`. */
export class CancelRunRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  id!: string;

  @IsObject()
  @ValidateNested()
  @Type(() => CancelRunDto)
  body!: CancelRunDto;
}

/** `RunnerSubjects.runsRerun`. */
export class RerunRunRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  id!: string;

  @IsObject()
  @ValidateNested()
  @Type(() => RerunRunDto)
  body!: RerunRunDto;
}

/**
 * Published on core NATS (`RunnerSubjects.runCancelled`, on `….run-cancelled.<runId>`) once a cancel
 * is committed. Every service that does a step's work (events for actions, agent, database) stops
 * what it does for the run: an HTTP request aborted, a model call aborted, a statement interrupted.
 * `message` names who cancelled and why; it is the error of the steps the cancel stopped.
 */
export interface RunCancelledEvent {
  runId: string;
  organizationId: string;
  message: string;
}

/** Published (`RunnerSubjects.runPauseRequested`) once a running run is `waitingForPause`. */
export interface RunPauseRequestedEvent {
  runId: string;
}
