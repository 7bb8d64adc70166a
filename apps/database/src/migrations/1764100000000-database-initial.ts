import type { MigrationInterface, QueryRunner } from 'typeorm';

export class DatabaseInitial1764100000000 implements MigrationInterface {
  name = 'DatabaseInitial1764100000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE SCHEMA IF NOT EXISTS "database"`);
    // Metadata only: the rows and tables of each database live in its DuckDB file under DATA_DIR.
    await runner.query(`
      CREATE TABLE "database".databases (
        id uuid PRIMARY KEY,
        organization_id text NOT NULL,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX databases_organization_name_key ON "database".databases (organization_id, name)`,
    );
    await runner.query(
      `CREATE INDEX databases_organization_id_idx ON "database".databases (organization_id, id)`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE "database".databases`);
  }
}
