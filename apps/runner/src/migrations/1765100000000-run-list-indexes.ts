import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The filtered lists of runs (docs/runs.md, "Finding and acting on many runs") walk these newest
 * first, a page at a time, however many runs the organization has: the organization's runs by id,
 * and by status or trigger within it or within a workflow (`runs_workflow_idx` already walks a
 * workflow's). A time range is a range of the id (UUIDv7), so it needs no index of its own. Built
 * concurrently, outside a transaction, so runs keep being written while a large table is indexed.
 * Measured with a million runs in docs/benchmarks.md, "Run lists at a million runs".
 */
export class RunListIndexes1765100000000 implements MigrationInterface {
  name = 'RunListIndexes1765100000000';
  transaction = false;

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_organization_idx ON runner.runs (organization_id, id DESC)`,
    );
    await runner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_status_idx ON runner.runs (organization_id, status, id DESC)`,
    );
    await runner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_workflow_status_idx
       ON runner.runs (organization_id, workflow_id, status, id DESC)`,
    );
    await runner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_trigger_idx ON runner.runs (organization_id, trigger, id DESC)`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX CONCURRENTLY IF EXISTS runner.runs_trigger_idx`);
    await runner.query(`DROP INDEX CONCURRENTLY IF EXISTS runner.runs_workflow_status_idx`);
    await runner.query(`DROP INDEX CONCURRENTLY IF EXISTS runner.runs_status_idx`);
    await runner.query(`DROP INDEX CONCURRENTLY IF EXISTS runner.runs_organization_idx`);
  }
}
