import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The run gauges (`RunGauges`, docs/observability.md) count the unfinished runs of each status every
 * `METRICS_POLL_MS`, each from its status's partial index: queued, waiting, running and the held
 * statuses had one; paused runs get theirs, so the count never reads the whole table. Built
 * concurrently, outside a transaction, so runs keep being written while a large table is indexed.
 */
export class PausedRunsIndex1765250000000 implements MigrationInterface {
  name = 'PausedRunsIndex1765250000000';
  transaction = false;

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_paused_idx ON runner.runs (created_at) WHERE status = 'paused'`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX CONCURRENTLY IF EXISTS runner.runs_paused_idx`);
  }
}
