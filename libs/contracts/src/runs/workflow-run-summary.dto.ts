import { ApiProperty } from '@nestjs/swagger';

import { RUN_STATUSES, type RunStatus } from './run-status.js';
import { RUN_TRIGGERS, type RunTrigger } from './start-run.request.js';

export class WorkflowRunSummaryDto {
  @ApiProperty()
  id!: string;

  @ApiProperty()
  workflowId!: string;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The published version it ran; null for a draft run.',
  })
  version!: number | null;

  @ApiProperty({ enum: RUN_TRIGGERS, description: 'What started the run.' })
  trigger!: RunTrigger;

  @ApiProperty({ type: String, nullable: true, description: 'The Trigger node the run started from.' })
  triggerNodeId!: string | null;

  @ApiProperty({
    enum: RUN_STATUSES,
    description: 'Poll until `complete`, `errored` or `terminated`. After 30 days it reads `unknown`.',
  })
  status!: RunStatus;

  @ApiProperty({ type: String, nullable: true, description: 'The member who started it; null for a key.' })
  createdBy!: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;
}
