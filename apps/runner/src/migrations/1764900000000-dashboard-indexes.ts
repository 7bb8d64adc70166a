import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The dashboard reads an organization's newest runs and its recently errored runs; each is a short
 * walk down one of these indexes, however many runs the organization has. Built concurrently, outside
 * a transaction, so runs keep being written while a large table is indexed.
 */
export class DashboardIndexes1764900000000 implements MigrationInterface {
  name = 'DashboardIndexes1764900000000';
  transaction = false;

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_recent_idx ON runner.runs (organization_id, created_at DESC)`,
    );
    await runner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_errored_idx ON runner.runs (organization_id, finished_at DESC)
       WHERE status = 'errored'`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX CONCURRENTLY IF EXISTS runner.runs_errored_idx`);
    await runner.query(`DROP INDEX CONCURRENTLY IF EXISTS runner.runs_recent_idx`);
  }
}
