import type { MigrationInterface, QueryRunner } from 'typeorm';

export class RunnerInitial1764000000000 implements MigrationInterface {
  name = 'RunnerInitial1764000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE SCHEMA IF NOT EXISTS runner`);
    // `diagram` is json, not jsonb: the diagram as it ran is returned exactly as it was sent.
    // `dispatch` numbers the run's jobs (message id run:<id>:<dispatch>), `lease_token` fences the
    // runner that holds the run: every checkpoint names it, so a late writer is refused.
    await runner.query(`
      CREATE TABLE runner.runs (
        id uuid PRIMARY KEY,
        organization_id text NOT NULL,
        workflow_id text NOT NULL,
        workflow_name text NOT NULL,
        project_id text NOT NULL,
        version integer,
        trigger text NOT NULL,
        trigger_node_id text,
        status text NOT NULL,
        created_by text,
        principal jsonb NOT NULL,
        input text NOT NULL,
        reply text,
        error text,
        diagram json NOT NULL,
        time_zone text NOT NULL,
        idempotency_key text,
        dispatch integer NOT NULL DEFAULT 0,
        dispatched_at timestamptz,
        lease_token integer NOT NULL DEFAULT 0,
        lease_expires_at timestamptz,
        claims integer NOT NULL DEFAULT 0,
        wake_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        finished_at timestamptz
      )`);
    await runner.query(
      `CREATE INDEX runs_workflow_idx ON runner.runs (organization_id, workflow_id, id DESC)`,
    );
    await runner.query(
      `CREATE UNIQUE INDEX runs_idempotency_key ON runner.runs (organization_id, idempotency_key)
       WHERE idempotency_key IS NOT NULL`,
    );
    // The sweeper's three questions, each answered from a small partial index.
    await runner.query(`CREATE INDEX runs_waiting_idx ON runner.runs (wake_at) WHERE status = 'waiting'`);
    await runner.query(`CREATE INDEX runs_queued_idx ON runner.runs (dispatched_at) WHERE status = 'queued'`);
    await runner.query(
      `CREATE INDEX runs_running_idx ON runner.runs (lease_expires_at) WHERE status = 'running'`,
    );
    // One row per node of a run: the primary key is the "exactly once" claim of a step's record.
    await runner.query(`
      CREATE TABLE runner.run_steps (
        run_id uuid NOT NULL REFERENCES runner.runs (id) ON DELETE CASCADE,
        node_id text NOT NULL,
        position integer NOT NULL,
        status text NOT NULL,
        via text[] NOT NULL DEFAULT '{}',
        input text,
        output jsonb,
        error text,
        ms integer,
        started_at timestamptz NOT NULL,
        attempt integer NOT NULL DEFAULT 1,
        route text,
        state jsonb,
        wake_at timestamptz,
        PRIMARY KEY (run_id, node_id)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE runner.run_steps`);
    await runner.query(`DROP TABLE runner.runs`);
  }
}
