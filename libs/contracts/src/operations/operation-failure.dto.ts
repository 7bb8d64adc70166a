import { ApiProperty } from '@nestjs/swagger';

/** One run (or event) an operation could not act on, and why. */
export class OperationFailureDto {
  @ApiProperty({ description: 'The run (`cancel`, `rerun`) or event (`replay`) it could not act on.' })
  targetId!: string;

  @ApiProperty({
    description:
      'The error code the action answered for it, e.g. `run_not_active` (a cancel of a finished run), `run_not_final` (a rerun of an unfinished one), `plan_limit_reached`.',
  })
  code!: string;

  @ApiProperty()
  message!: string;

  @ApiProperty({ format: 'date-time' })
  at!: string;
}
