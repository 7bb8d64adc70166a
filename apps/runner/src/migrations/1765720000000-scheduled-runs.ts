import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Scheduled runs written before their due time wait `queued` with `held_by = 'schedule'` and
 * `release_at` their due time (docs/workflows.md, "Schedules"). The sweeper finds the ones whose time
 * has come, and the earliest to come, in this index: a step into it stops at the first row not due,
 * however many schedules wait.
 */
export class ScheduledRuns1765720000000 implements MigrationInterface {
  name = 'ScheduledRuns1765720000000';
  transaction = false;

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_held_schedule_idx ON runner.runs (release_at)
       WHERE held_by = 'schedule' AND status = 'queued'`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX CONCURRENTLY IF EXISTS runner.runs_held_schedule_idx`);
  }
}
