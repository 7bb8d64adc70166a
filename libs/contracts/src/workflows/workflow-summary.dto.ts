import { ApiProperty } from '@nestjs/swagger';

export class WorkflowSummaryDto {
  @ApiProperty()
  id!: string;

  @ApiProperty()
  projectId!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ type: String, nullable: true })
  description!: string | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The live version number; null until the first publish.',
  })
  publishedVersion!: number | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      'When the workflow was paused; its schedule and app event triggers do not fire until resume.',
  })
  pausedAt!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'User id of the creator; null when a key created it.',
  })
  createdBy!: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}
