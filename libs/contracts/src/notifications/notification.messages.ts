import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsString,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import { NotificationDeliveriesQueryDto } from './notification-delivery.dto.js';
import {
  DIAGRAM_NOTIFICATIONS_MAX,
  NOTIFICATION_TEXT_MAX_CHARS,
  NOTIFIED_RUN_STATUSES,
  type NotifiedRunStatus,
  type RunNotificationSetting,
} from './notification-limits.js';

/** Longer than a notification carries, so the events service can tell that it was cut. */
export const RUN_ENDED_TEXT_MAX_CHARS = NOTIFICATION_TEXT_MAX_CHARS + 1;

/** A run's reply or error as `RunEndedRequest` takes it. */
export const runEndedText = (text: string | null): string | null =>
  text === null ? null : text.slice(0, RUN_ENDED_TEXT_MAX_CHARS);

/** One entry of a diagram's `settings.notifications`, as the runner passes it on. */
export class RunNotificationSettingMessage implements RunNotificationSetting {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  endpointId!: string;

  @IsArray()
  @ArrayMaxSize(NOTIFIED_RUN_STATUSES.length)
  @IsIn(NOTIFIED_RUN_STATUSES, { each: true })
  statuses!: NotifiedRunStatus[];
}

/**
 * `EventsSubjects.notificationsRunEnded`: a run whose diagram names notification endpoints ended.
 * The events service records one delivery per endpoint whose `statuses` hold the run's status (once
 * per endpoint and run, however often this is sent), then answers; the deliveries go out after.
 */
export class RunEndedRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  runId!: string;

  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  workflowId!: string;

  /** The published version it ran; null for a draft run. */
  @ValidateIf((_object, value) => value !== null)
  @IsInt()
  @Min(1)
  version!: number | null;

  @IsIn(NOTIFIED_RUN_STATUSES)
  status!: NotifiedRunStatus;

  /** At most RUN_ENDED_TEXT_MAX_CHARS (`runEndedText`): the body carries less, and says it was cut. */
  @ValidateIf((_object, value) => value !== null)
  @IsString()
  @MaxLength(RUN_ENDED_TEXT_MAX_CHARS)
  error!: string | null;

  @ValidateIf((_object, value) => value !== null)
  @IsString()
  @MaxLength(RUN_ENDED_TEXT_MAX_CHARS)
  reply!: string | null;

  @IsISO8601({ strict: true })
  startedAt!: string;

  @IsISO8601({ strict: true })
  finishedAt!: string;

  /** The diagram's `settings.notifications`, as the run's diagram has them. */
  @IsArray()
  @ArrayMaxSize(DIAGRAM_NOTIFICATIONS_MAX)
  @ValidateNested({ each: true })
  @Type(() => RunNotificationSettingMessage)
  notifications!: RunNotificationSettingMessage[];
}

export interface RunEndedReply {
  /** Deliveries recorded by this request (0 when they already were, or none matched). */
  recorded: number;
}

/**
 * A run's reply or error as a notification carries it: at most NOTIFICATION_TEXT_MAX_CHARS
 * characters, with whether it was cut.
 */
export function notificationText(text: string | null): { text: string | null; truncated: boolean } {
  if (text === null || text.length <= NOTIFICATION_TEXT_MAX_CHARS) return { text, truncated: false };
  const cut = text.slice(0, NOTIFICATION_TEXT_MAX_CHARS);
  // Never half of a surrogate pair: the body is JSON, read as UTF-8.
  return { text: /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut, truncated: true };
}

/** Which of these endpoints exist in the caller's organization (the publish check). */
export class NotificationEndpointIdsRequest {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(DIAGRAM_NOTIFICATIONS_MAX)
  @IsString({ each: true })
  @MaxLength(MESSAGE_ID_MAX_LENGTH, { each: true })
  ids!: string[];
}

export class ListNotificationDeliveriesRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  id!: string;

  @IsObject()
  @ValidateNested()
  @Type(() => NotificationDeliveriesQueryDto)
  query!: NotificationDeliveriesQueryDto;
}
