import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

import type { ShardLoad } from './shard-assignment.util.js';

export type ShardState = ShardLoad['state'];

export interface ShardRow extends ShardLoad {
  heartbeatAt: Date;
}

/** The replicas registered in `database.shards`, and how many databases each holds. */
@Injectable()
export class ShardRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** A replica that starts keeps the state it had: a restart moves nothing and activates nothing. */
  async register(shard: number): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO "database".shards (shard) VALUES ($1)
       ON CONFLICT (shard) DO UPDATE SET started_at = now(), heartbeat_at = now()`,
      [shard],
    );
  }

  async heartbeat(shard: number): Promise<void> {
    await this.dataSource.query(`UPDATE "database".shards SET heartbeat_at = now() WHERE shard = $1`, [
      shard,
    ]);
  }

  /** Every registered shard, and every shard that holds databases without being registered. */
  async loads(liveMs: number): Promise<ShardRow[]> {
    const rows: Array<{
      shard: number;
      state: ShardState | null;
      heartbeatAt: Date | null;
      live: boolean;
      databases: number;
    }> = await this.dataSource.query(
      `SELECT coalesce(s.shard, d.shard) AS shard, s.state, s.heartbeat_at AS "heartbeatAt",
                coalesce(s.heartbeat_at > now() - make_interval(secs => $1::float8 / 1000), false) AS live,
                coalesce(d.databases, 0)::int AS databases
           FROM "database".shards s
           FULL JOIN (SELECT shard, count(*) AS databases FROM "database".databases GROUP BY shard) d
             ON d.shard = s.shard
          ORDER BY 1`,
      [liveMs],
    );
    return rows.map((row) => ({
      shard: row.shard,
      // Files on a shard that never registered (a replica not yet started since the upgrade).
      state: row.state ?? 'leaving',
      heartbeatAt: row.heartbeatAt ?? new Date(0),
      live: row.live,
      databases: row.databases,
    }));
  }

  async setState(shard: number, state: ShardState): Promise<boolean> {
    const [, affected] = (await this.dataSource.query(
      `UPDATE "database".shards SET state = $2 WHERE shard = $1`,
      [shard, state],
    )) as [unknown, number];
    return affected > 0;
  }

  /** Makes every replica heard from recently a target again (after a scale-up). */
  async activateLive(liveMs: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE "database".shards SET state = 'active'
        WHERE heartbeat_at > now() - make_interval(secs => $1::float8 / 1000)`,
      [liveMs],
    );
  }
}
