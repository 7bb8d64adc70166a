import { ApiProperty } from '@nestjs/swagger';

import { WorkflowDto } from './workflow.dto.js';

export class WorkflowDetailDto extends WorkflowDto {
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      "When the live version's schedule trigger runs next; null when it has none or the workflow is paused.",
  })
  nextRunAt!: string | null;
}
