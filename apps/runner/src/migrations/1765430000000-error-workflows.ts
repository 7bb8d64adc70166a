import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Error workflows (docs/workflows.md, "Error workflows"). `error_of_run_id`: on a run its workflow's
 * error workflow started, the failed run; such a run starts no error workflow when it fails itself.
 * `error_workflow`: on a failed run, what starting its error workflow came to (the run started, or
 * why none could be), written once.
 */
export class ErrorWorkflows1765430000000 implements MigrationInterface {
  name = 'ErrorWorkflows1765430000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE runner.runs ADD COLUMN error_of_run_id uuid, ADD COLUMN error_workflow json`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE runner.runs DROP COLUMN error_of_run_id, DROP COLUMN error_workflow`);
  }
}
