import type { DashboardActivityDayDto } from '#contracts';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

export type ConsumeRunResult = 'counted' | 'already_counted' | 'limit_reached';

/** Each plan's monthly run limit, and the one of an organization whose plan is unknown. */
export interface RunLimits {
  byPlan: Readonly<Record<string, number>>;
  fallback: number;
}

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
   * Counts a run once, in one statement on the run start's hot path: the organization's plan is read
   * in it (`runLimits` maps each plan id to its run limit), the run id row makes a retried start a
   * no-op, and the conditional increment refuses the run that would pass the limit. Answers the
   * limit that applied, for the refusal's details.
   */
  async consumeRun(
    organizationId: string,
    runId: string,
    runLimits: RunLimits,
    now = new Date(),
  ): Promise<{ result: ConsumeRunResult; limit: number }> {
    const rows: Array<{ inserted: boolean; bumped: boolean; limit: number }> = await this.dataSource.query(
      `WITH plan AS (
         SELECT coalesce(($5::jsonb ->> (SELECT p.plan FROM catalog.organization_plans p
                                          WHERE p.organization_id = $2))::int, $6::int) AS runs
       ), counted AS (
         INSERT INTO catalog.counted_runs (run_id, organization_id, counted_at) VALUES ($1, $2, $7)
         ON CONFLICT (run_id) DO NOTHING RETURNING run_id
       ), bumped AS (
         INSERT INTO catalog.run_usage AS usage (organization_id, period, runs)
         SELECT $2, $3, 1 FROM counted
         ON CONFLICT (organization_id, period) DO UPDATE SET runs = usage.runs + 1
           WHERE usage.runs < (SELECT runs FROM plan)
         RETURNING runs
       ), day AS (
         INSERT INTO catalog.run_days AS days (organization_id, day, runs)
         SELECT $2, $4, 1 FROM bumped
         ON CONFLICT (organization_id, day) DO UPDATE SET runs = days.runs + 1
       )
       SELECT EXISTS (SELECT 1 FROM counted) AS inserted, EXISTS (SELECT 1 FROM bumped) AS bumped,
         (SELECT runs FROM plan) AS "limit"`,
      [
        runId,
        organizationId,
        currentPeriod(now),
        utcDay(now),
        JSON.stringify(runLimits.byPlan),
        runLimits.fallback,
        now,
      ],
    );
    const { inserted, bumped, limit } = rows[0] ?? { inserted: false, bumped: false, limit: 0 };
    if (!inserted) return { result: 'already_counted', limit };
    if (bumped) return { result: 'counted', limit };
    // Over the limit: forget the run id so it was never counted. Were this lost in a crash, the run
    // id would only read as counted to a retry of the same start, which the runner never makes.
    await this.dataSource.query('DELETE FROM catalog.counted_runs WHERE run_id = $1', [runId]);
    return { result: 'limit_reached', limit };
  }

  /**
   * Takes a counted run back off its month and its day (those of its `counted_at`), in one
   * statement; false when the run id was not counted (never, or already refunded).
   *
   * The month's row is locked before the day's, as `consumeRun` locks them: Postgres runs
   * data-modifying CTEs that nothing reads in an order of its own (it ran the day's first), and a
   * refund racing a count then deadlocked on the two rows. Reading the month's CTE in the day's
   * condition makes the month's update finish before the day's row is touched.
   */
  async refundRun(organizationId: string, runId: string): Promise<boolean> {
    const rows: Array<{ refunded: boolean }> = await this.dataSource.query(
      `WITH gone AS (
         DELETE FROM catalog.counted_runs WHERE run_id = $1 AND organization_id = $2
         RETURNING (counted_at AT TIME ZONE 'UTC')::date AS day
       ), month AS (
         UPDATE catalog.run_usage SET runs = runs - 1
          WHERE organization_id = $2 AND runs > 0
            AND period = (SELECT date_trunc('month', day)::date FROM gone)
         RETURNING runs
       ), days AS (
         UPDATE catalog.run_days SET runs = runs - 1
          WHERE organization_id = $2 AND runs > 0 AND day = (SELECT day FROM gone)
            AND (SELECT count(*) FROM month) >= 0
       )
       SELECT EXISTS (SELECT 1 FROM gone) AS refunded`,
      [runId, organizationId],
    );
    return rows[0]?.refunded ?? false;
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
