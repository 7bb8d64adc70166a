import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Bulk operations (docs/runs.md, "Finding and acting on many runs"). An operation is accepted with
 * the ids it acts on (`operation_targets`, one row each: the snapshot, and the record that makes it
 * act on each at most once). Any runner replica serves it a batch at a time under a lease
 * (`lease_token` fences a holder whose lease ran out); `served_at` orders organizations round-robin.
 */
export class Operations1765100100000 implements MigrationInterface {
  name = 'Operations1765100100000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE runner.operations (
        id uuid PRIMARY KEY,
        organization_id text NOT NULL,
        action text NOT NULL,
        status text NOT NULL,
        principal jsonb NOT NULL,
        workflow_id text,
        params jsonb NOT NULL,
        matched integer NOT NULL,
        done integer NOT NULL DEFAULT 0,
        failed integer NOT NULL DEFAULT 0,
        lease_token integer NOT NULL DEFAULT 0,
        lease_expires_at timestamptz,
        served_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      )`);
    // The workers' question, "which running operations may I take", from a small partial index.
    await runner.query(
      `CREATE INDEX operations_running_idx ON runner.operations (served_at NULLS FIRST) WHERE status = 'running'`,
    );
    // `state`: pending → acting (committed before the action is called) → done | failed. A row found
    // `acting` after its holder died is checked before it is acted on again (docs/runs.md).
    await runner.query(`
      CREATE TABLE runner.operation_targets (
        operation_id uuid NOT NULL REFERENCES runner.operations (id) ON DELETE CASCADE,
        target_id text NOT NULL,
        state text NOT NULL DEFAULT 'pending',
        attempts integer NOT NULL DEFAULT 0,
        acted_at timestamptz,
        result_id text,
        code text,
        error text,
        PRIMARY KEY (operation_id, target_id)
      )`);
    await runner.query(
      `CREATE INDEX operation_targets_open_idx ON runner.operation_targets (operation_id, target_id DESC)
       WHERE state IN ('pending', 'acting')`,
    );
    await runner.query(
      `CREATE INDEX operation_targets_failed_idx ON runner.operation_targets (operation_id, acted_at)
       WHERE state = 'failed'`,
    );

    // A rerun whose holder died mid-call is found by the run it made (docs/runs.md).
    await runner.query(`CREATE INDEX runs_rerun_of_idx ON runner.runs (rerun_of) WHERE rerun_of IS NOT NULL`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX runner.runs_rerun_of_idx`);
    await runner.query(`DROP TABLE runner.operation_targets`);
    await runner.query(`DROP TABLE runner.operations`);
  }
}
