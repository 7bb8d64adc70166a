import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Runs counted per organization and UTC day, bumped by the same statement that counts a run against
 * the monthly quota: the dashboard's seven days of activity are seven rows, however many runs there
 * were. Days before this migration are filled in from the runs already counted.
 */
export class RunDays1764900000000 implements MigrationInterface {
  name = 'RunDays1764900000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE catalog.run_days (
        organization_id text NOT NULL,
        day date NOT NULL,
        runs integer NOT NULL DEFAULT 0,
        PRIMARY KEY (organization_id, day)
      )`);
    await runner.query(`
      INSERT INTO catalog.run_days (organization_id, day, runs)
      SELECT organization_id, (counted_at AT TIME ZONE 'UTC')::date, count(*)
        FROM catalog.counted_runs GROUP BY 1, 2`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE catalog.run_days`);
  }
}
