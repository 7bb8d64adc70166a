import { ApiProperty } from '@nestjs/swagger';

import { TextField } from '../common/field.decorators.js';
import { DIAGRAM_ID_MAX_LENGTH } from '../workflows/diagram.js';

export const EVENT_OUTCOMES = ['started', 'limit_reached', 'no_listener', 'error', 'dead'] as const;
export type EventOutcome = (typeof EVENT_OUTCOMES)[number];

/** The contract's events are kept this long, then deleted. */
export const EVENT_RETENTION_DAYS = 30;

/** The contract's preview: the first 300 characters of the payload. */
export const EVENT_PREVIEW_LENGTH = 300;

export class OutcomeDto {
  @ApiProperty()
  triggerNodeId!: string;

  @ApiProperty({
    enum: EVENT_OUTCOMES,
    description:
      '`started` a run; `limit_reached`: monthly runs used up; `no_listener`: the trigger is no longer live or the workflow is paused; `error`: the run could not be started; `dead`: the subscription or its connection is broken.',
  })
  outcome!: EventOutcome;

  @ApiProperty({ type: String, nullable: true })
  runId!: string | null;

  @ApiProperty({ type: String, nullable: true })
  error!: string | null;

  @ApiProperty({ format: 'date-time' })
  at!: string;
}

export class AppEventDto {
  @ApiProperty()
  id!: string;

  @ApiProperty({
    description: 'The app-connection trigger, `<provider>/<trigger-name>`.',
    example: 'webhook/received',
  })
  triggerId!: string;

  @ApiProperty({ description: 'The first 300 characters of the payload.' })
  preview!: string;

  @ApiProperty({ format: 'date-time', description: 'When the app says the event happened.' })
  firedAt!: string;

  @ApiProperty({ format: 'date-time' })
  receivedAt!: string;

  @ApiProperty({ type: () => [OutcomeDto], description: "What each of the workflow's triggers did." })
  outcomes!: OutcomeDto[];
}

/** The body of `POST /api/v1/workflows/{id}/events/{eventId}/replay`. */
export class ReplayEventDto {
  @TextField({ min: 1, max: DIAGRAM_ID_MAX_LENGTH, description: 'The trigger to replay the event for.' })
  triggerNodeId!: string;
}

export class QueuedDto {
  @ApiProperty({ enum: [true] })
  queued!: true;
}
