import { IsInt, Max, Min } from 'class-validator';

import { IdRequest } from '../messaging/common-requests.js';

/** One version of a workflow, by its number. */
export class VersionRequest extends IdRequest {
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  number!: number;
}
