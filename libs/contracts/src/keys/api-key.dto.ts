import { ApiProperty } from '@nestjs/swagger';

/** An organization key as the API keys page lists it: never the key itself, only how it starts. */
export class ApiKeyDto {
  @ApiProperty()
  id!: string;

  @ApiProperty({ type: String, nullable: true })
  name!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The first characters, to tell keys apart.' })
  start!: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ type: String, nullable: true, format: 'date-time' })
  lastUsedAt!: string | null;
}
