import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deleting a project is two steps with a request to the workflow service between them, and no
 * transaction may wait on that request: the row is first marked (`deleted_at`: it reads as not found
 * from then on, and no longer counts against the plan), then removed once workflow has taken over its
 * workflows. `purge_after` is when a sweep may take a marked row (again): the lease of whoever is
 * finishing it now.
 */
export class ProjectDeletion1764400000000 implements MigrationInterface {
  name = 'ProjectDeletion1764400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE catalog.projects ADD COLUMN deleted_at timestamptz, ADD COLUMN purge_after timestamptz`,
    );
    await runner.query(
      `CREATE INDEX projects_purge_idx ON catalog.projects (purge_after) WHERE deleted_at IS NOT NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX catalog.projects_purge_idx`);
    await runner.query(`ALTER TABLE catalog.projects DROP COLUMN deleted_at, DROP COLUMN purge_after`);
  }
}
