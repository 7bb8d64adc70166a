import { ApiProperty } from '@nestjs/swagger';

export class QueryMetaDto {
  @ApiProperty({ description: 'Rows the statement returned (the length of `rows`).' })
  rowsRead!: number;

  @ApiProperty({ description: 'Rows the statement inserted, updated or deleted.' })
  rowsWritten!: number;
}
