import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

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

  @ApiPropertyOptional({
    type: String,
    description:
      'Extension: on a child run (a called workflow or a loop iteration), the run whose step started it. Absent on every other run (docs/runs.md, "Child runs").',
  })
  parentRunId?: string;

  @ApiPropertyOptional({
    type: String,
    description: 'Extension: on a child run, the node of the parent step that started it. Absent otherwise.',
  })
  parentNodeId?: string;

  @ApiPropertyOptional({
    type: 'integer',
    description:
      "Extension: on a loop iteration, its index in the loop's items (from 0). Absent on every other run.",
  })
  iteration?: number;
}
