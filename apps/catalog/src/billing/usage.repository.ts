import { InjectKysely } from '#persistence';
import { Injectable } from '@nestjs/common';
import { type Kysely, sql } from 'kysely';

import type { DB } from '../catalog.tables.js';
import { currentPeriod, lastSevenDays, utcDay } from './usage-period.util.js';
import { type DayRuns, runsOnDays } from './usage.mapper.js';

export type ConsumeRunResult = 'counted' | 'already_counted' | 'limit_reached';

/** Each plan's monthly run limit, and the one of an organization whose plan is unknown. */
export interface RunLimits {
  byPlan: Readonly<Record<string, number>>;
  fallback: number;
}

/** A UTC calendar day (`YYYY-MM-DD`), as a date column is compared with it. */
const calendarDay = (day: string) => sql<Date>`${day}::date`;

@Injectable()
export class UsageRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /**
   * Counts a run once, in one statement on the run start's hot path (`countRunQuery`). Answers the
   * limit that applied, for the refusal's details.
   */
  async consumeRun(
    organizationId: string,
    runId: string,
    runLimits: RunLimits,
    now = new Date(),
  ): Promise<{ result: ConsumeRunResult; limit: number }> {
    const row = await this.countRunQuery(organizationId, runId, runLimits, now).executeTakeFirst();
    const limit = row?.limit ?? 0;
    if (!row?.inserted) return { result: 'already_counted', limit };
    if (row.bumped) return { result: 'counted', limit };
    // Over the limit: forget the run id so it was never counted. Were this lost in a crash, the run
    // id would only read as counted to a retry of the same start, which the runner never makes.
    await this.db.deleteFrom('catalog.counted_runs').where('run_id', '=', runId).execute();
    return { result: 'limit_reached', limit };
  }

  /**
   * The run-counting statement, one round trip: the organization's plan is read in it (`runLimits`
   * maps each plan id to its run limit), the run id row makes a retried start a no-op, and the
   * conditional increment refuses the run that would pass the limit; a counted run is also counted on
   * its UTC day. Public so the runs benchmark sends this very statement.
   */
  countRunQuery(organizationId: string, runId: string, runLimits: RunLimits, now: Date) {
    const limits = JSON.stringify(runLimits.byPlan);
    const plan = this.db
      .selectFrom('catalog.organization_plans as p')
      .select('p.plan')
      .where('p.organization_id', '=', organizationId);
    return this.db
      .with('plan', (db) =>
        db.selectNoFrom(
          sql<number>`coalesce((${limits}::jsonb ->> ${plan})::int, ${runLimits.fallback}::int)`.as('runs'),
        ),
      )
      .with('counted', (db) =>
        db
          .insertInto('catalog.counted_runs')
          .values({ run_id: runId, organization_id: organizationId, counted_at: now })
          .onConflict((conflict) => conflict.column('run_id').doNothing())
          .returning('run_id'),
      )
      .with('bumped', (db) =>
        db
          .insertInto('catalog.run_usage')
          .columns(['organization_id', 'period', 'runs'])
          .expression(
            db
              .selectFrom('counted')
              .select((eb) => [
                eb.val(organizationId).as('organization_id'),
                eb.val(currentPeriod(now)).as('period'),
                eb.lit(1).as('runs'),
              ]),
          )
          .onConflict((conflict) =>
            conflict
              .columns(['organization_id', 'period'])
              .doUpdateSet((eb) => ({ runs: eb('catalog.run_usage.runs', '+', eb.lit(1)) }))
              .where('catalog.run_usage.runs', '<', (eb) => eb.selectFrom('plan').select('runs')),
          )
          .returning('runs'),
      )
      .with('day', (db) =>
        db
          .insertInto('catalog.run_days')
          .columns(['organization_id', 'day', 'runs'])
          .expression(
            db
              .selectFrom('bumped')
              .select((eb) => [
                eb.val(organizationId).as('organization_id'),
                eb.val(utcDay(now)).as('day'),
                eb.lit(1).as('runs'),
              ]),
          )
          .onConflict((conflict) =>
            conflict
              .columns(['organization_id', 'day'])
              .doUpdateSet((eb) => ({ runs: eb('catalog.run_days.runs', '+', eb.lit(1)) })),
          ),
      )
      .selectNoFrom((eb) => [
        eb.exists(eb.selectFrom('counted').selectAll()).as('inserted'),
        eb.exists(eb.selectFrom('bumped').selectAll()).as('bumped'),
        eb.selectFrom('plan').select('runs').as('limit'),
      ]);
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
    const row = await this.db
      .with('gone', (db) =>
        db
          .deleteFrom('catalog.counted_runs')
          .where('run_id', '=', runId)
          .where('organization_id', '=', organizationId)
          .returning(sql<Date>`(counted_at AT TIME ZONE 'UTC')::date`.as('day')),
      )
      .with('month', (db) =>
        db
          .updateTable('catalog.run_usage')
          .set((eb) => ({ runs: eb('runs', '-', eb.lit(1)) }))
          .where('organization_id', '=', organizationId)
          .where('runs', '>', 0)
          .where('period', '=', (eb) =>
            eb.selectFrom('gone').select(sql<Date>`date_trunc('month', day)::date`.as('period')),
          )
          .returning('runs'),
      )
      .with('days', (db) =>
        db
          .updateTable('catalog.run_days')
          .set((eb) => ({ runs: eb('runs', '-', eb.lit(1)) }))
          .where('organization_id', '=', organizationId)
          .where('runs', '>', 0)
          .where('day', '=', (eb) => eb.selectFrom('gone').select('day'))
          .where((eb) =>
            eb(eb.selectFrom('month').select(eb.fn.countAll<number>().as('months')).$asScalar(), '>=', 0),
          ),
      )
      .selectNoFrom((eb) => eb.exists(eb.selectFrom('gone').selectAll()).as('refunded'))
      .executeTakeFirst();
    return Boolean(row?.refunded);
  }

  /** Runs counted on each of the last seven UTC days, oldest first, days without runs as 0. */
  async activity(organizationId: string, now = new Date()): Promise<DayRuns[]> {
    const days = lastSevenDays(now);
    const rows = await this.db
      .selectFrom('catalog.run_days')
      .select([sql<string>`to_char(day, 'YYYY-MM-DD')`.as('day'), 'runs'])
      .where('organization_id', '=', organizationId)
      .where((eb) => eb.between('day', calendarDay(days[0]), calendarDay(days[6])))
      .execute();
    return runsOnDays(days, rows);
  }

  async runsThisPeriod(organizationId: string): Promise<number> {
    const row = await this.db
      .selectFrom('catalog.run_usage')
      .select('runs')
      .where('organization_id', '=', organizationId)
      .where('period', '=', calendarDay(currentPeriod()))
      .executeTakeFirst();
    return row?.runs ?? 0;
  }
}
