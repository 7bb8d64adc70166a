import { ApiProperty } from '@nestjs/swagger';

import { QueryMetaDto } from './query-meta.dto.js';
import { SQL_CELL_SCHEMA, type SqlCell } from './sql-value.js';

export class QueryResultDto {
  @ApiProperty({
    type: [String],
    description: 'Column names in order; empty for a statement that returns no rows.',
  })
  columns!: string[];

  @ApiProperty({
    type: 'array',
    items: { type: 'array', items: SQL_CELL_SCHEMA },
    description:
      'One array of cells per row. BIGINT, HUGEINT and DECIMAL come as strings of digits, dates and times as ' +
      "DuckDB's text for them, BLOBs as `{blob: <base64>}`, nested values as JSON text (docs/databases.md).",
  })
  rows!: SqlCell[][];

  @ApiProperty({ type: QueryMetaDto })
  meta!: QueryMetaDto;
}
