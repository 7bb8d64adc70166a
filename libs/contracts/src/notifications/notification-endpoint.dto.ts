import { ApiProperty } from '@nestjs/swagger';

import { TextField } from '../common/field.decorators.js';
import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import { NOTIFICATION_URL_MAX_LENGTH } from './notification-limits.js';

/** Where a workflow's runs are reported when they end (docs/notifications.md). */
export class NotificationEndpointDto {
  @ApiProperty()
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ description: 'The `http` or `webhook` connection the deliveries go through.' })
  connectionId!: string;

  @ApiProperty({ description: 'Where deliveries are POSTed: an HTTPS URL.' })
  url!: string;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;
}

/** An endpoint just made: its signing secret is shown this once. */
export class CreatedNotificationEndpointDto extends NotificationEndpointDto {
  @ApiProperty({
    description:
      'The `whsec_…` secret every delivery to this endpoint is signed with (Standard Webhooks). Shown this once.',
  })
  secret!: string;
}

/** A new signing secret of an endpoint, shown this once. */
export class NotificationSecretDto {
  @ApiProperty({ description: 'The new `whsec_…` secret; the previous one signs nothing from now on.' })
  secret!: string;
}

/** The body of `POST /api/v1/notification-endpoints`. */
export class CreateNotificationEndpointDto {
  @TextField({ min: 1, max: 100 })
  name!: string;

  /** An `http` connection's headers go with each delivery when the URL is one of its allowed origins. */
  @TextField({
    min: 1,
    max: MESSAGE_ID_MAX_LENGTH,
    description: "One of the organization's `http` or `webhook` connections.",
  })
  connectionId!: string;

  @TextField({
    min: 1,
    max: NOTIFICATION_URL_MAX_LENGTH,
    description: 'An HTTPS URL on a public address.',
    example: 'https://alerts.example.com/flowmesh',
  })
  url!: string;
}
