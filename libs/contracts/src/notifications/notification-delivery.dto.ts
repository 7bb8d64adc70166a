import { ApiProperty } from '@nestjs/swagger';

import { EnumField, OptionalTextField } from '../common/field.decorators.js';
import { PageQueryDto } from '../common/page.dto.js';
import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import {
  NOTIFICATION_DELIVERY_STATUSES,
  NOTIFIED_RUN_STATUSES,
  type NotificationDeliveryStatus,
  type NotifiedRunStatus,
} from './notification-limits.js';

/** What one attempt of a delivery got. */
export class NotificationAttemptDto {
  @ApiProperty({ type: 'integer', description: '1 for the first attempt.' })
  attempt!: number;

  @ApiProperty({ format: 'date-time', description: 'When it was sent.' })
  at!: string;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: "The endpoint's HTTP status; null when no answer came (refused, timed out).",
  })
  responseStatus!: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why the attempt failed; null when it was delivered.',
  })
  error!: string | null;

  @ApiProperty({ type: 'integer', description: 'How long the attempt took.' })
  durationMs!: number;
}

/** One run's notification to one endpoint, and how its attempts went. */
export class NotificationDeliveryDto {
  @ApiProperty({ description: 'Also the `webhook-id` header of every attempt.' })
  id!: string;

  @ApiProperty()
  endpointId!: string;

  @ApiProperty()
  runId!: string;

  @ApiProperty()
  workflowId!: string;

  @ApiProperty({ enum: NOTIFIED_RUN_STATUSES, description: 'The status the run ended with.' })
  runStatus!: NotifiedRunStatus;

  @ApiProperty({
    enum: NOTIFICATION_DELIVERY_STATUSES,
    description:
      '`pending` while attempts remain, `delivered` once the endpoint answered 2xx, `failed` when they ran out.',
  })
  status!: NotificationDeliveryStatus;

  @ApiProperty({ type: 'integer', description: 'Attempts made so far.' })
  attempts!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: "The last attempt's HTTP status." })
  lastResponseStatus!: number | null;

  @ApiProperty({ type: String, nullable: true, description: "The last attempt's error." })
  lastError!: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When the next attempt is due; null once delivered or failed.',
  })
  nextAttemptAt!: string | null;

  @ApiProperty({ type: [NotificationAttemptDto], description: 'Every attempt, oldest first.' })
  outcomes!: NotificationAttemptDto[];

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}

/** `GET /api/v1/notification-endpoints/{id}/deliveries`: newest first, narrowed by run or status. */
export class NotificationDeliveriesQueryDto extends PageQueryDto {
  @OptionalTextField({ min: 1, max: MESSAGE_ID_MAX_LENGTH, description: "Only this run's delivery." })
  runId?: string;

  @EnumField(NOTIFICATION_DELIVERY_STATUSES, {
    optional: true,
    description: 'Only deliveries in this status.',
  })
  status?: NotificationDeliveryStatus;
}
