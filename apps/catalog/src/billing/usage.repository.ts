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
   * Counts a run once: the run id row makes a retried start a no-op, and the conditional increment
   * refuses the run that would pass the limit, all in one transaction.
   */
  consumeRun(organizationId: string, runId: string, limit: number): Promise<ConsumeRunResult> {
    return this.dataSource.transaction(async (manager) => {
      const inserted: unknown[] = await manager.query(
        `INSERT INTO catalog.counted_runs (run_id, organization_id) VALUES ($1, $2)
         ON CONFLICT (run_id) DO NOTHING RETURNING run_id`,
        [runId, organizationId],
      );
      if (inserted.length === 0) return 'already_counted';
      const period = currentPeriod();
      await manager.query(
        `INSERT INTO catalog.run_usage (organization_id, period, runs) VALUES ($1, $2, 0)
         ON CONFLICT (organization_id, period) DO NOTHING`,
        [organizationId, period],
      );
      const [rows] = (await manager.query(
        `UPDATE catalog.run_usage SET runs = runs + 1
         WHERE organization_id = $1 AND period = $2 AND runs < $3 RETURNING runs`,
        [organizationId, period, limit],
      )) as [unknown[], number];
      if (rows.length === 0) {
        await manager.query('DELETE FROM catalog.counted_runs WHERE run_id = $1', [runId]);
        return 'limit_reached';
      }
      return 'counted';
    });
  }

  async runsThisPeriod(organizationId: string): Promise<number> {
    const rows: Array<{ runs: number }> = await this.dataSource.query(
      'SELECT runs FROM catalog.run_usage WHERE organization_id = $1 AND period = $2',
      [organizationId, currentPeriod()],
    );
    return rows[0]?.runs ?? 0;
  }
}
