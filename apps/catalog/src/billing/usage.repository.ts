import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

export type ConsumeRunResult = 'counted' | 'already_counted' | 'limit_reached';

/** The first day of the current UTC month: the period the run quota counts. */
export function currentPeriod(now = new Date()): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString().slice(0, 10);
}

@Injectable()
export class UsageRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Counts a run once, in one statement on the run start's hot path: the run id row makes a retried
   * start a no-op, and the conditional increment refuses the run that would pass the limit.
   */
  async consumeRun(organizationId: string, runId: string, limit: number): Promise<ConsumeRunResult> {
    const rows: Array<{ inserted: boolean; bumped: boolean }> = await this.dataSource.query(
      `WITH counted AS (
         INSERT INTO catalog.counted_runs (run_id, organization_id) VALUES ($1, $2)
         ON CONFLICT (run_id) DO NOTHING RETURNING run_id
       ), bumped AS (
         INSERT INTO catalog.run_usage AS usage (organization_id, period, runs)
         SELECT $2, $3, 1 FROM counted
         ON CONFLICT (organization_id, period) DO UPDATE SET runs = usage.runs + 1 WHERE usage.runs < $4
         RETURNING runs
       )
       SELECT EXISTS (SELECT 1 FROM counted) AS inserted, EXISTS (SELECT 1 FROM bumped) AS bumped`,
      [runId, organizationId, currentPeriod(), limit],
    );
    const { inserted, bumped } = rows[0] ?? { inserted: false, bumped: false };
    if (!inserted) return 'already_counted';
    if (bumped) return 'counted';
    // Over the limit: forget the run id so it was never counted. Were this lost in a crash, the run
    // id would only read as counted to a retry of the same start, which the runner never makes.
    await this.dataSource.query('DELETE FROM catalog.counted_runs WHERE run_id = $1', [runId]);
    return 'limit_reached';
  }

  async runsThisPeriod(organizationId: string): Promise<number> {
    const rows: Array<{ runs: number }> = await this.dataSource.query(
      'SELECT runs FROM catalog.run_usage WHERE organization_id = $1 AND period = $2',
      [organizationId, currentPeriod()],
    );
    return rows[0]?.runs ?? 0;
  }
}
