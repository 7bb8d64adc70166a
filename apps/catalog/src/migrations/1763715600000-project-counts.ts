import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A project count per organization, so the plan limit is one conditional increment instead of a
 * count over every project under a per-organization lock.
 */
export class ProjectCounts1763715600000 implements MigrationInterface {
  name = 'ProjectCounts1763715600000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE catalog.project_counts (
        organization_id text PRIMARY KEY,
        projects integer NOT NULL DEFAULT 0 CHECK (projects >= 0)
      )`);
    await runner.query(`
      INSERT INTO catalog.project_counts (organization_id, projects)
      SELECT organization_id, count(*) FROM catalog.projects GROUP BY organization_id`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE catalog.project_counts`);
  }
}
