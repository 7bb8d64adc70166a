import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, ValidateBy, ValidateIf } from 'class-validator';

import { canonicalTimeZone, DEFAULT_TIME_ZONE } from './schedule.js';

export class PublishWorkflowDto {
  @ApiPropertyOptional({
    type: String,
    default: DEFAULT_TIME_ZONE,
    example: 'America/New_York',
    description: "IANA time zone in which the Trigger schedule's dates and times are read.",
  })
  @ValidateIf((_object: object, value: unknown) => value !== undefined)
  @IsString()
  @ValidateBy({
    name: 'isTimeZone',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && canonicalTimeZone(value) !== null,
      defaultMessage: () => 'timeZone must be an IANA time zone such as UTC or Europe/Paris',
    },
  })
  timeZone?: string;
}
