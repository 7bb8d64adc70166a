import { ApiProperty } from '@nestjs/swagger';

import { QueryResultDto } from './query-result.dto.js';

export class QueryResponseDto {
  @ApiProperty({ type: [QueryResultDto], description: 'One result per statement, in order.' })
  results!: QueryResultDto[];
}
