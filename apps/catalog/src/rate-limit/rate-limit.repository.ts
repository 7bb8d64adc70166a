import { InjectKysely } from '#persistence';
import { Injectable } from '@nestjs/common';
import { type Kysely, sql } from 'kysely';

import type { DB } from '../catalog.tables.js';

export interface BucketCount {
  bucket: string;
  count: number;
}

/** A bucket as the statement unnests it; `position` is its place in the request, a bigint. */
interface SentRow {
  bucket: string;
  hits: number;
  position: string;
}

@Injectable()
export class RateLimitRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /**
   * Adds a gateway's hits to the shared window in one statement and answers the total of every bucket
   * it named, in the order named; a count of 0 asks for the total only. Only positive counts are
   * written, so a bucket nobody hit gets no row and a total never goes down: a negative count can only
   * be a caller's mistake, and must not hand a credential back the requests it already made.
   */
  async add(windowStart: number, hits: BucketCount[]): Promise<BucketCount[]> {
    if (hits.length === 0) return [];
    const buckets = hits.map((hit) => hit.bucket);
    const counts = hits.map((hit) => hit.count);
    const sent = sql<SentRow>`unnest(${buckets}::text[], ${counts}::int[]) WITH ORDINALITY`.as<'t'>(
      sql`t(bucket, hits, position)`,
    );
    const rows = await this.db
      .with('sent', (db) => db.selectFrom(sent).select(['bucket', 'hits', 'position']))
      .with('added', (db) =>
        db
          .insertInto('catalog.rate_limit_windows')
          .columns(['bucket', 'window_start', 'hits'])
          .expression(
            db
              .selectFrom('sent')
              .select((eb) => ['bucket', eb.val(windowStart).as('window_start'), 'hits'])
              .where('hits', '>', 0),
          )
          .onConflict((conflict) =>
            conflict.columns(['bucket', 'window_start']).doUpdateSet((eb) => ({
              hits: eb('catalog.rate_limit_windows.hits', '+', eb.ref('excluded.hits')),
            })),
          )
          .returning(['bucket', 'hits']),
      )
      .selectFrom('sent')
      .leftJoin('added', 'added.bucket', 'sent.bucket')
      .leftJoin('catalog.rate_limit_windows as stored', (join) =>
        join.onRef('stored.bucket', '=', 'sent.bucket').on('stored.window_start', '=', String(windowStart)),
      )
      .select((eb) => ['sent.bucket', eb.fn.coalesce('added.hits', 'stored.hits', eb.lit(0)).as('hits')])
      .orderBy('sent.position')
      .execute();
    return rows.map((row) => ({ bucket: row.bucket, count: row.hits }));
  }

  async deleteBefore(windowStart: number): Promise<void> {
    await this.db
      .deleteFrom('catalog.rate_limit_windows')
      .where('window_start', '<', String(windowStart))
      .execute();
  }
}
