import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

export interface BucketCount {
  bucket: string;
  count: number;
}

@Injectable()
export class RateLimitRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Adds a gateway's hits to the shared window in one statement and answers the total of every bucket
   * it named, in the order named; a count of 0 asks for the total only. Only positive counts are
   * written, so a bucket nobody hit gets no row and a total never goes down: a negative count can only
   * be a caller's mistake, and must not hand a credential back the requests it already made.
   */
  async add(windowStart: number, hits: BucketCount[]): Promise<BucketCount[]> {
    if (hits.length === 0) return [];
    const rows: Array<{ bucket: string; hits: number }> = await this.dataSource.query(
      `WITH sent AS (
         SELECT bucket, hits, position
         FROM unnest($2::text[], $3::int[]) WITH ORDINALITY AS t(bucket, hits, position)
       ), added AS (
         INSERT INTO catalog.rate_limit_windows AS w (bucket, window_start, hits)
         SELECT bucket, $1, hits FROM sent WHERE hits > 0
         ON CONFLICT (bucket, window_start) DO UPDATE SET hits = w.hits + EXCLUDED.hits
         RETURNING bucket, hits
       )
       SELECT sent.bucket, COALESCE(added.hits, stored.hits, 0) AS hits
       FROM sent
       LEFT JOIN added ON added.bucket = sent.bucket
       LEFT JOIN catalog.rate_limit_windows stored
         ON stored.bucket = sent.bucket AND stored.window_start = $1
       ORDER BY sent.position`,
      [windowStart, hits.map((hit) => hit.bucket), hits.map((hit) => hit.count)],
    );
    return rows.map((row) => ({ bucket: row.bucket, count: row.hits }));
  }

  async deleteBefore(windowStart: number): Promise<void> {
    await this.dataSource.query('DELETE FROM catalog.rate_limit_windows WHERE window_start < $1', [
      windowStart,
    ]);
  }
}
