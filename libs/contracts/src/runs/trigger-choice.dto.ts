import { ApiProperty } from '@nestjs/swagger';

/** A Trigger node a run may start from, as trigger_required lists them. */
export class TriggerChoiceDto {
  @ApiProperty({ description: 'Pass as `triggerNodeId`.' })
  id!: string;

  @ApiProperty({ type: String, nullable: true, description: "The trigger's `label`; null when it has none." })
  label!: string | null;
}
