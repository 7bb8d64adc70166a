import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The span a run's steps are children of, as a W3C `traceparent` (docs/tracing.md): written when the
 * run starts, so whichever runner claims the run later (after a restart) puts its steps in the same
 * trace under the same parent. Null when tracing was off at the start.
 */
export class RunTraceParent1765200300000 implements MigrationInterface {
  name = 'RunTraceParent1765200300000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE runner.runs ADD COLUMN trace_parent text`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE runner.runs DROP COLUMN trace_parent`);
  }
}
