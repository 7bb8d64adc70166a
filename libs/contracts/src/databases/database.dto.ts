import { ApiProperty } from '@nestjs/swagger';

export class DatabaseDto {
  @ApiProperty()
  id!: string;

  @ApiProperty({ description: 'Unique in the organization.' })
  name!: string;

  @ApiProperty()
  description!: string;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}
