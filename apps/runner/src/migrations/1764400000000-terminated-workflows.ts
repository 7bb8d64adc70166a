import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A deleted workflow is remembered here once its runs are terminated, so that a start which read
 * the workflow's run target before the delete cannot record a run after the termination.
 *
 * `workflow_takes_runs` is called by every run insert, in the same statement: it takes a shared
 * advisory lock on the workflow, then looks for the workflow here. Termination takes the same lock
 * exclusively, records the workflow here and terminates its runs. Under READ COMMITTED a statement
 * sees only what committed before it began, so the look-up must come after the lock is granted:
 * that is why it is a VOLATILE function, whose queries each take a fresh snapshot. Either the insert
 * commits first (its run is then visible to the termination, which waited for its lock) or the
 * termination does (the insert, which waited, then finds the workflow here and records nothing).
 */
export class TerminatedWorkflows1764400000000 implements MigrationInterface {
  name = 'TerminatedWorkflows1764400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE runner.terminated_workflows (
        organization_id text NOT NULL,
        workflow_id text NOT NULL,
        terminated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, workflow_id)
      )`);
    await runner.query(`
      CREATE FUNCTION runner.workflow_takes_runs(p_organization_id text, p_workflow_id text)
      RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock_shared(hashtext('workflow-runs:' || p_workflow_id));
        RETURN NOT EXISTS (
          SELECT 1 FROM runner.terminated_workflows
          WHERE organization_id = p_organization_id AND workflow_id = p_workflow_id);
      END
      $$`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP FUNCTION runner.workflow_takes_runs(text, text)`);
    await runner.query(`DROP TABLE runner.terminated_workflows`);
  }
}
