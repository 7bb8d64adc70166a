import { IsIn, IsInt, IsISO8601, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import { DIAGRAM_ID_MAX_LENGTH } from '../workflows/diagram.js';
import { EVENT_OUTCOMES, type EventOutcome } from './app-event.dto.js';

/** The most event ids one `EventsSubjects.eventsReplayCandidates` reply carries (37 bytes each). */
export const REPLAY_CANDIDATES_PAGE_MAX = 5000;

/**
 * `EventsSubjects.eventsReplayCandidates`: the ids of the events a bulk replay acts on, newest first,
 * a page at a time (`beforeId` is the last id of the previous page).
 */
export class ReplayCandidatesRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  workflowId!: string;

  @IsString()
  @MaxLength(DIAGRAM_ID_MAX_LENGTH)
  triggerNodeId!: string;

  @IsOptional()
  @IsIn(EVENT_OUTCOMES)
  outcome?: EventOutcome;

  @IsOptional()
  @IsISO8601({ strict: true })
  after?: string;

  @IsOptional()
  @IsISO8601({ strict: true })
  before?: string;

  @IsOptional()
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  beforeId?: string;

  @IsInt()
  @Min(1)
  @Max(REPLAY_CANDIDATES_PAGE_MAX)
  limit!: number;
}

export interface ReplayCandidatesReply {
  ids: string[];
}
