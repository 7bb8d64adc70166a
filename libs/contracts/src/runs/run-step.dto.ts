import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

import { STEP_STATUSES, type StepStatus } from './run-status.js';

export class RunStepDto {
  @ApiProperty()
  nodeId!: string;

  @ApiProperty({ enum: STEP_STATUSES })
  status!: StepStatus;

  @ApiProperty({ type: [String], description: 'Ids of the edges that fired into this node.' })
  via!: string[];

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'What the step acted on, with its templates rendered (JSON text for structured input).',
  })
  input!: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    nullable: true,
    description: 'Each output field, as `{{nodes.<nodeId>.<field>}}` reads it.',
  })
  output!: Record<string, string> | null;

  @ApiProperty({ type: String, nullable: true })
  error!: string | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Milliseconds from start to end, waits included.',
  })
  ms!: number | null;

  @ApiProperty({ format: 'date-time' })
  startedAt!: string;

  @ApiPropertyOptional({
    type: Boolean,
    enum: [true],
    description:
      'Extension: present (`true`) on a compensation, the step that undid the `done` step of the same `nodeId` while the run was `rollingBack`. Absent on every other step.',
  })
  compensation?: true;

  @ApiPropertyOptional({
    type: String,
    description:
      'Extension: on a rerun, the run this step was carried over from, `done` with its output and not executed again. Absent on every step the run executed.',
  })
  carriedFrom?: string;

  @ApiPropertyOptional({
    type: Boolean,
    enum: [true],
    description:
      "Extension: present (`true`) when the operator's retention setting trimmed this step's payload (docs/retention.md): `input` and `output` then read null, whatever the step held. Its status, `via`, `error`, `ms` and `startedAt` stay. Absent on every step kept in full.",
  })
  trimmed?: true;
}
