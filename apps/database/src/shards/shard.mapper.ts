import type { ShardLoad, ShardState } from './shard-assignment.util.js';

/** A shard as the registry lists it. */
export interface ShardRecord extends ShardLoad {
  heartbeatAt: Date;
}

/** A shard's registration (absent when it holds databases without having registered) and its count. */
export interface ShardLoadRow {
  shard: number;
  state: ShardState | null;
  heartbeat_at: Date | null;
  live: boolean;
  databases: number;
}

export function toShardRecord(row: ShardLoadRow): ShardRecord {
  return {
    shard: row.shard,
    // Files on a shard that never registered (a replica not yet started since the upgrade).
    state: row.state ?? 'leaving',
    heartbeatAt: row.heartbeat_at ?? new Date(0),
    live: row.live,
    databases: row.databases,
  };
}
