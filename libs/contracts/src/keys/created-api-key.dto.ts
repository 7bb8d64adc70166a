import { ApiProperty } from '@nestjs/swagger';

import { ApiKeyDto } from './api-key.dto.js';

/** A key just made: the only answer that carries the key, which is stored hashed. */
export class CreatedApiKeyDto extends ApiKeyDto {
  @ApiProperty({ description: 'The key (`fm_…`), shown this once.' })
  key!: string;
}
