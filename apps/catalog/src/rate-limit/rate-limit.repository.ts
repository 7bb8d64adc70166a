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

  /** Adds every gateway's hits to the shared window in one statement and answers the new totals. */
  async add(windowStart: number, hits: BucketCount[]): Promise<BucketCount[]> {
    if (hits.length === 0) return [];
    const rows: Array<{ bucket: string; hits: number }> = await this.dataSource.query(
      `INSERT INTO catalog.rate_limit_windows AS w (bucket, window_start, hits)
       SELECT bucket, $1, hits FROM unnest($2::text[], $3::int[]) AS t(bucket, hits)
       ON CONFLICT (bucket, window_start) DO UPDATE SET hits = w.hits + EXCLUDED.hits
       RETURNING bucket, hits`,
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
