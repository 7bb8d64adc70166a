import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Run control (docs/runs.md, "Run control"): a rerun names the run it reruns, and its carried-over
 * steps name the run they came from; a compensation is a step of its own beside the step it undoes
 * (same node, `compensation` true), so the key of a step becomes the node and which of the two it is.
 * `rollback_end` is the status a rolling-back run ends in: `errored` after a failure, `terminated`
 * after a cancel. Runs held while pausing or rolling back are found by the sweeper like running ones.
 */
export class RunControl1765000000000 implements MigrationInterface {
  name = 'RunControl1765000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE runner.runs ADD COLUMN rerun_of uuid, ADD COLUMN rollback_end text`);
    await runner.query(`
      ALTER TABLE runner.run_steps
        ADD COLUMN compensation boolean NOT NULL DEFAULT false,
        ADD COLUMN carried_from uuid`);
    await runner.query(`ALTER TABLE runner.run_steps DROP CONSTRAINT run_steps_pkey`);
    await runner.query(`ALTER TABLE runner.run_steps ADD PRIMARY KEY (run_id, node_id, compensation)`);
    await runner.query(
      `CREATE INDEX runs_held_idx ON runner.runs (lease_expires_at)
       WHERE status IN ('waitingForPause', 'rollingBack')`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX runner.runs_held_idx`);
    await runner.query(`DELETE FROM runner.run_steps WHERE compensation`);
    await runner.query(`ALTER TABLE runner.run_steps DROP CONSTRAINT run_steps_pkey`);
    await runner.query(`ALTER TABLE runner.run_steps ADD PRIMARY KEY (run_id, node_id)`);
    await runner.query(`ALTER TABLE runner.run_steps DROP COLUMN compensation, DROP COLUMN carried_from`);
    await runner.query(`ALTER TABLE runner.runs DROP COLUMN rerun_of, DROP COLUMN rollback_end`);
  }
}
