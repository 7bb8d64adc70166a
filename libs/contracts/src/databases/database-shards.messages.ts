import { IsInt, Max, Min } from 'class-validator';

/** A replica of the database service, as `npm run admin -- databases shards list` shows it. */
export interface DatabaseShardDto {
  shard: number;
  /** `active` takes new databases; `leaving` is being (or was) drained for a scale-down. */
  state: 'active' | 'leaving';
  /** Its heartbeat is recent. */
  live: boolean;
  heartbeatAt: string;
  databases: number;
}

export interface DatabaseShardsDto {
  shards: DatabaseShardDto[];
}

export class DatabaseShardRequest {
  @IsInt()
  @Min(0)
  @Max(999)
  shard!: number;
}

/** What a drain or rebalance did: each database moved, or why it did not. */
export interface DatabaseMovesDto {
  moved: Array<{ databaseId: string; from: number; to: number; bytes: number; ms: number }>;
  failed: Array<{ databaseId: string; from: number; to: number; message: string }>;
  shards: DatabaseShardDto[];
}
