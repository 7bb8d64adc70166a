import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class ErrorDetailDto {
  @ApiProperty({ description: 'Stable code for branching, e.g. project_not_found.' })
  code!: string;

  @ApiProperty({ description: 'For people.' })
  message!: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'More to say: `issues` for invalid_request, `resource` and `limit` for plan_limit_reached, …',
  })
  details?: Record<string, unknown>;
}

export class ErrorDto {
  @ApiProperty({ type: ErrorDetailDto })
  error!: ErrorDetailDto;
}
