import { ApiProperty } from '@nestjs/swagger';

export class DeletedDto {
  @ApiProperty({ enum: [true] })
  deleted!: true;
}
