import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

import { ErrorDetailsDto } from './error-details.dto.js';

export class ErrorDetailDto {
  @ApiProperty({ description: 'Stable code for branching, e.g. project_not_found.' })
  code!: string;

  @ApiProperty({ description: 'For people.' })
  message!: string;

  @ApiPropertyOptional({ type: ErrorDetailsDto, description: 'Present only when the error has more to say.' })
  details?: ErrorDetailsDto;
}

export class ErrorDto {
  @ApiProperty({ type: ErrorDetailDto })
  error!: ErrorDetailDto;
}
