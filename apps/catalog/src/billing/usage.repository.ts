import type { DashboardActivityDayDto } from '#contracts';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

export type ConsumeRunResult = 'counted' | 'already_counted' | 'limit_reached';

/** The first day of the current UTC month: the period the run quota counts. */
export function currentPeriod(now = new Date()): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString().slice(0, 10);
}

const DAY_MS = 86_400_000;

/** The UTC calendar day of `at`, `YYYY-MM-DD`. */
const utcDay = (at: Date) => at.toISOString().slice(0, 10);

/** The last seven UTC calendar days up to and including the day of `now`, oldest first. */
export function lastSevenDays(now: Date): string[] {
  return Array.from({ length: 7 }, (_, index) => utcDay(new Date(now.getTime() - (6 - index) * DAY_MS)));
}

@Injectable()
export class UsageRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Counts a run once, in one statement on the run start's hot path: the run id row makes a retried
   * start a no-op, and the conditional increment refuses the run that would pass the limit.
   */
  async consumeRun(
    organizationId: string,
    runId: string,
    limit: number,
    now = new Date(),
  ): Promise<ConsumeRunResult> {
    const rows: Array<{ inserted: boolean; bumped: boolean }> = await this.dataSource.query(
      `WITH counted AS (
         INSERT INTO catalog.counted_runs (run_id, organization_id) VALUES ($1, $2)
         ON CONFLICT (run_id) DO NOTHING RETURNING run_id
       ), bumped AS (
         INSERT INTO catalog.run_usage AS usage (organization_id, period, runs)
         SELECT $2, $3, 1 FROM counted
         ON CONFLICT (organization_id, period) DO UPDATE SET runs = usage.runs + 1 WHERE usage.runs < $4
         RETURNING runs
       ), day AS (
         INSERT INTO catalog.run_days AS days (organization_id, day, runs)
         SELECT $2, $5, 1 FROM bumped
         ON CONFLICT (organization_id, day) DO UPDATE SET runs = days.runs + 1
       )
       SELECT EXISTS (SELECT 1 FROM counted) AS inserted, EXISTS (SELECT 1 FROM bumped) AS bumped`,
      [runId, organizationId, currentPeriod(now), limit, utcDay(now)],
    );
    const { inserted, bumped } = rows[0] ?? { inserted: false, bumped: false };
    if (!inserted) return 'already_counted';
    if (bumped) return 'counted';
    // Over the limit: forget the run id so it was never counted. Were this lost in a crash, the run
    // id would only read as counted to a retry of the same start, which the runner never makes.
    await this.dataSource.query('DELETE FROM catalog.counted_runs WHERE run_id = $1', [runId]);
    return 'limit_reached';
  }

  /** Runs counted on each of the last seven UTC days, oldest first, days without runs as 0. */
  async activity(organizationId: string, now = new Date()): Promise<DashboardActivityDayDto[]> {
    const days = lastSevenDays(now);
    const rows: Array<{ day: string; runs: number }> = await this.dataSource.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, runs FROM catalog.run_days
        WHERE organization_id = $1 AND day BETWEEN $2 AND $3`,
      [organizationId, days[0], days[6]],
    );
    const counted = new Map(rows.map((row) => [row.day, row.runs]));
    return days.map((date) => ({ date, runs: counted.get(date) ?? 0 }));
  }

  async runsThisPeriod(organizationId: string): Promise<number> {
    const rows: Array<{ runs: number }> = await this.dataSource.query(
      'SELECT runs FROM catalog.run_usage WHERE organization_id = $1 AND period = $2',
      [organizationId, currentPeriod()],
    );
    return rows[0]?.runs ?? 0;
  }
}
