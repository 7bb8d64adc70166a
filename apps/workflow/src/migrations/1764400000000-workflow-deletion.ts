import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deleting a workflow is two steps with a request to the runner between them, and no transaction may
 * wait on that request: the row is first marked (`deleted_at`: it reads as not found from then on),
 * then purged once the runner has terminated its runs. `purge_after` is when a purge sweep may take a
 * marked row (again): it is the lease of whoever is purging it now.
 *
 * `deleted_projects` remembers the projects catalog deleted, so a workflow created while its project
 * is being deleted is refused rather than left behind (see `WorkflowRepository.insert`).
 */
export class WorkflowDeletion1764400000000 implements MigrationInterface {
  name = 'WorkflowDeletion1764400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE workflow.workflows ADD COLUMN deleted_at timestamptz, ADD COLUMN purge_after timestamptz`,
    );
    await runner.query(
      `CREATE INDEX workflows_purge_idx ON workflow.workflows (purge_after) WHERE deleted_at IS NOT NULL`,
    );
    await runner.query(`
      CREATE TABLE workflow.deleted_projects (
        organization_id text NOT NULL,
        project_id uuid NOT NULL,
        deleted_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, project_id)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE workflow.deleted_projects`);
    await runner.query(`DROP INDEX workflow.workflows_purge_idx`);
    await runner.query(`ALTER TABLE workflow.workflows DROP COLUMN deleted_at, DROP COLUMN purge_after`);
  }
}
