import { ApiProperty } from '@nestjs/swagger';

export class WorkflowVersionDto {
  @ApiProperty()
  id!: string;

  @ApiProperty()
  workflowId!: string;

  @ApiProperty({ type: 'integer', description: '1, 2, 3 … in publish order; the newest is live.' })
  number!: number;

  @ApiProperty({ example: 'UTC', description: 'IANA time zone of the Trigger schedule.' })
  timeZone!: string;

  @ApiProperty({ type: String, nullable: true, description: 'User id; null when a key published it.' })
  publishedBy!: string | null;

  @ApiProperty({ format: 'date-time' })
  publishedAt!: string;
}
