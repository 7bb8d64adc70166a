import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Approvals1764800000000 implements MigrationInterface {
  name = 'Approvals1764800000000';

  async up(runner: QueryRunner): Promise<void> {
    // One row per ask-first call. The row, not a process, holds the wait: a decision, the expiry,
    // the action's outcome, the wake of the run and the admins' email are each recorded here.
    await runner.query(`
      CREATE TABLE "agent".approvals (
        id uuid PRIMARY KEY,
        organization_id text NOT NULL,
        run_id text NOT NULL,
        node_id text NOT NULL,
        workflow_id text NOT NULL,
        workflow_name text NOT NULL,
        thread_id uuid NOT NULL,
        tool_call_id text NOT NULL,
        tool text NOT NULL,
        action text NOT NULL,
        connection_id text NOT NULL,
        input jsonb NOT NULL,
        status text NOT NULL DEFAULT 'pending',
        reason text,
        decided_by text,
        decided_at timestamptz,
        result jsonb,
        error text,
        settled_at timestamptz,
        woken_at timestamptz,
        notified_at timestamptz,
        notify_attempts integer NOT NULL DEFAULT 0,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (run_id, node_id, tool_call_id)
      )`);
    await runner.query(`CREATE INDEX approvals_step_idx ON "agent".approvals (run_id, node_id)`);
    await runner.query(
      `CREATE INDEX approvals_pending_idx ON "agent".approvals (organization_id, expires_at)
        WHERE status = 'pending'`,
    );
    await runner.query(
      `CREATE INDEX approvals_unwoken_idx ON "agent".approvals (decided_at)
        WHERE status <> 'pending' AND woken_at IS NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE "agent".approvals`);
  }
}
