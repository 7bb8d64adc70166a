import { IsInt, IsString, IsUUID, Matches, Max, MaxLength, Min } from 'class-validator';

import { MAX_SHARD } from './shard-identity.util.js';

/** To the source shard: move this database of yours to `target`. */
export class MoveRequest {
  @IsUUID()
  databaseId!: string;

  @IsInt()
  @Min(0)
  @Max(MAX_SHARD)
  target!: number;
}

/** To the target shard, after the last part of the file: verify it and take the database. */
export class AdoptRequest {
  @IsUUID()
  moveId!: string;

  @IsUUID()
  databaseId!: string;

  @IsString()
  @MaxLength(200)
  organizationId!: string;

  @IsInt()
  @Min(0)
  @Max(MAX_SHARD)
  source!: number;

  @IsInt()
  @Min(0)
  size!: number;

  @Matches(/^[0-9a-f]{64}$/)
  sha256!: string;
}

export interface MovedDto {
  bytes: number;
  ms: number;
}

/** Headers of each part of a file sent to `database.shard.<target>.receive`. */
export const MoveHeaders = {
  move: 'Fm-Move',
  database: 'Fm-Database',
  organization: 'Fm-Organization',
  offset: 'Fm-Offset',
} as const;
