import type { MigrationInterface, QueryRunner } from 'typeorm';

export class WorkflowInitial1763800000000 implements MigrationInterface {
  name = 'WorkflowInitial1763800000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE SCHEMA IF NOT EXISTS workflow`);
    // Diagrams are `json`, not `jsonb`: the text is kept as sent, so layout properties come back in
    // the order the builder wrote them. Nothing queries inside a diagram.
    await runner.query(`
      CREATE TABLE workflow.workflows (
        id uuid PRIMARY KEY,
        organization_id text NOT NULL,
        project_id uuid NOT NULL,
        name text NOT NULL,
        description text,
        diagram json NOT NULL,
        published_version integer,
        paused_at timestamptz,
        created_by text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(
      `CREATE INDEX workflows_project_idx ON workflow.workflows (organization_id, project_id, id)`,
    );
    await runner.query(`
      CREATE TABLE workflow.versions (
        id uuid PRIMARY KEY,
        workflow_id uuid NOT NULL REFERENCES workflow.workflows (id) ON DELETE CASCADE,
        number integer NOT NULL CHECK (number > 0),
        time_zone text NOT NULL,
        diagram json NOT NULL,
        published_by text,
        published_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT versions_workflow_number_key UNIQUE (workflow_id, number)
      )`);
    // One row per schedule trigger of a live, unpaused version, with the next time it is due.
    await runner.query(`
      CREATE TABLE workflow.schedules (
        workflow_id uuid NOT NULL REFERENCES workflow.workflows (id) ON DELETE CASCADE,
        trigger_node_id text NOT NULL,
        organization_id text NOT NULL,
        version integer NOT NULL,
        cron text NOT NULL,
        time_zone text NOT NULL,
        next_run_at timestamptz NOT NULL,
        PRIMARY KEY (workflow_id, trigger_node_id)
      )`);
    await runner.query(`CREATE INDEX schedules_due_idx ON workflow.schedules (next_run_at)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE workflow.schedules`);
    await runner.query(`DROP TABLE workflow.versions`);
    await runner.query(`DROP TABLE workflow.workflows`);
  }
}
