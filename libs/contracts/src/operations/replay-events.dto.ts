import { EnumField, OptionalDateTimeField, TextField } from '../common/field.decorators.js';
import { EVENT_OUTCOMES, type EventOutcome } from '../events/app-event.dto.js';
import { DIAGRAM_ID_MAX_LENGTH } from '../workflows/diagram.js';

/** The body of `POST /api/v1/workflows/{id}/events/replay`. */
export class ReplayEventsDto {
  @TextField({ min: 1, max: DIAGRAM_ID_MAX_LENGTH, description: 'The trigger to replay the events for.' })
  triggerNodeId!: string;

  @EnumField(EVENT_OUTCOMES, {
    optional: true,
    description:
      'Only events whose outcome for this trigger is this one (say `error` or `limit_reached`); without it, every event that reached the trigger.',
  })
  outcome?: EventOutcome;

  @OptionalDateTimeField('Only events received at or after this instant (ISO 8601 with a time zone).')
  after?: string;

  @OptionalDateTimeField('Only events received before this instant (ISO 8601 with a time zone).')
  before?: string;
}
