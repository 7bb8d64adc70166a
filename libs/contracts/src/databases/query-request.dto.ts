import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, ValidateNested } from 'class-validator';

import { QUERY_LIMITS } from './query-limits.js';
import { QueryStatementDto } from './query-statement.dto.js';

export class QueryRequestDto {
  /** Run in order, in one transaction: the first failure rolls every statement back. */
  @ApiProperty({
    type: [QueryStatementDto],
    minItems: 1,
    maxItems: QUERY_LIMITS.maxStatements,
    description: 'Run in order, in one transaction: the first failure rolls every statement back.',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(QUERY_LIMITS.maxStatements)
  @ValidateNested({ each: true })
  @Type(() => QueryStatementDto)
  statements!: QueryStatementDto[];
}

/** The message behind `DatabaseSubjects.query` and `queryStream`, sent with the caller's principal. */
export interface QueryRequest {
  id: string;
  body: QueryRequestDto;
}
