import { InjectKysely } from '#persistence';
import { Injectable } from '@nestjs/common';
import { type Kysely, type RawBuilder, sql } from 'kysely';

import type { DB } from '../database.tables.js';
import type { ShardState } from './shard-assignment.util.js';
import { type ShardRecord, toShardRecord } from './shard.mapper.js';

/** The replicas registered in `database.shards`, and how many databases each holds. */
@Injectable()
export class ShardRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /** A replica that starts keeps the state it had: a restart moves nothing and activates nothing. */
  async register(shard: number): Promise<void> {
    await this.db
      .insertInto('database.shards')
      .values({ shard })
      .onConflict((conflict) =>
        conflict
          .column('shard')
          .doUpdateSet({ started_at: sql<Date>`now()`, heartbeat_at: sql<Date>`now()` }),
      )
      .execute();
  }

  async heartbeat(shard: number): Promise<void> {
    await this.db
      .updateTable('database.shards')
      .set({ heartbeat_at: sql<Date>`now()` })
      .where('shard', '=', shard)
      .execute();
  }

  /** Every registered shard, and every shard that holds databases without being registered. */
  async loads(liveMs: number): Promise<ShardRecord[]> {
    const held = this.db
      .selectFrom('database.databases')
      .select((eb) => ['shard', eb.fn.countAll<string>().as('databases')])
      .groupBy('shard');
    const rows = await this.db
      .selectFrom('database.shards as s')
      .fullJoin(held.as('d'), 'd.shard', 's.shard')
      .select((eb) => [
        eb.fn.coalesce('s.shard', 'd.shard').$notNull().as('shard'),
        's.state',
        's.heartbeat_at',
        eb.fn
          .coalesce(eb('s.heartbeat_at', '>', heardSince(liveMs)), eb.lit(false))
          .$castTo<boolean>()
          .as('live'),
        eb.cast<number>(eb.fn.coalesce('d.databases', eb.lit(0)), 'integer').as('databases'),
      ])
      .orderBy('shard')
      .execute();
    return rows.map(toShardRecord);
  }

  async setState(shard: number, state: ShardState): Promise<boolean> {
    const result = await this.db
      .updateTable('database.shards')
      .set({ state })
      .where('shard', '=', shard)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Makes every replica heard from recently a target again (after a scale-up). */
  async activateLive(liveMs: number): Promise<void> {
    await this.db
      .updateTable('database.shards')
      .set({ state: 'active' })
      .where('heartbeat_at', '>', heardSince(liveMs))
      .execute();
  }
}

/** A heartbeat after this is recent: its replica is live. */
function heardSince(liveMs: number): RawBuilder<Date> {
  return sql<Date>`now() - make_interval(secs => ${liveMs}::float8 / 1000)`;
}
