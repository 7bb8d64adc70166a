import { Type } from 'class-transformer';
import { IsObject, IsString, MaxLength, ValidateNested } from 'class-validator';

import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import { RunsQueryDto } from '../runs/run-filter.dto.js';
import { ReplayEventsDto } from './replay-events.dto.js';

/** `RunnerSubjects.runsSearch`: a page of the organization's runs. */
export class SearchRunsRequest {
  @IsObject()
  @ValidateNested()
  @Type(() => RunsQueryDto)
  query!: RunsQueryDto;
}

/** `RunnerSubjects.operationsReplayEvents`; the gateway has checked the workflow is the caller's. */
export class ReplayEventsRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  workflowId!: string;

  @IsObject()
  @ValidateNested()
  @Type(() => ReplayEventsDto)
  body!: ReplayEventsDto;
}
