import { ApiProperty } from '@nestjs/swagger';

import { OperationFailureDto } from './operation-failure.dto.js';
import {
  OPERATION_ACTIONS,
  OPERATION_FAILURES_LISTED,
  OPERATION_STATUSES,
  type OperationAction,
  type OperationStatus,
} from './operation-status.js';

/** An action over many runs or events (docs/runs.md, "Finding and acting on many runs"). */
export class OperationDto {
  @ApiProperty()
  id!: string;

  @ApiProperty({ enum: OPERATION_ACTIONS })
  action!: OperationAction;

  @ApiProperty({
    enum: OPERATION_STATUSES,
    description: '`running` until every matched run (or event) is `done` or `failed`; then `complete`.',
  })
  status!: OperationStatus;

  @ApiProperty({ type: 'integer', description: 'Runs (or events) the filter matched when it was accepted.' })
  matched!: number;

  @ApiProperty({ type: 'integer', description: 'Acted on.' })
  done!: number;

  @ApiProperty({ type: 'integer', description: 'Could not be acted on; the first are in `failures`.' })
  failed!: number;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The workflow of a `replay`; null for `cancel` and `rerun`.',
  })
  workflowId!: string | null;

  @ApiProperty({
    type: () => [OperationFailureDto],
    description: `The first ${OPERATION_FAILURES_LISTED} runs (or events) it could not act on, with why.`,
  })
  failures!: OperationFailureDto[];

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When it became `complete`.',
  })
  finishedAt!: string | null;
}
