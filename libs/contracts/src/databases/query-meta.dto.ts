import { ApiProperty } from '@nestjs/swagger';

export class QueryMetaDto {
  @ApiProperty({ type: 'integer', description: 'Rows the statement returned (the length of `rows`).' })
  rowsRead!: number;

  @ApiProperty({ type: 'integer', description: 'Rows the statement inserted, updated or deleted.' })
  rowsWritten!: number;
}
