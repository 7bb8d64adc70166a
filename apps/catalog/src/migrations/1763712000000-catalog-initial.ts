import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CatalogInitial1763712000000 implements MigrationInterface {
  name = 'CatalogInitial1763712000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE SCHEMA IF NOT EXISTS catalog`);
    await runner.query(`
      CREATE TABLE catalog.projects (
        id uuid PRIMARY KEY,
        organization_id text NOT NULL,
        name text NOT NULL,
        description text,
        created_by text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`CREATE INDEX projects_organization_id_idx ON catalog.projects (organization_id, id)`);
    await runner.query(`
      CREATE TABLE catalog.skills (
        id uuid PRIMARY KEY,
        organization_id text NOT NULL,
        user_id text,
        name text NOT NULL,
        description text NOT NULL,
        instructions text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX skills_organization_name_key ON catalog.skills (organization_id, name)`,
    );
    await runner.query(`
      CREATE TABLE catalog.organization_plans (
        organization_id text PRIMARY KEY,
        plan text NOT NULL,
        complimentary boolean NOT NULL DEFAULT false,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Monthly run quota: a counter per organization and month, and one row per counted run so a
    // retried start never counts twice.
    await runner.query(`
      CREATE TABLE catalog.run_usage (
        organization_id text NOT NULL,
        period date NOT NULL,
        runs integer NOT NULL DEFAULT 0,
        PRIMARY KEY (organization_id, period)
      )`);
    await runner.query(`
      CREATE TABLE catalog.counted_runs (
        run_id text PRIMARY KEY,
        organization_id text NOT NULL,
        counted_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`
      CREATE TABLE catalog.rate_limit_windows (
        bucket text NOT NULL,
        window_start bigint NOT NULL,
        hits integer NOT NULL DEFAULT 0,
        PRIMARY KEY (bucket, window_start)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE catalog.rate_limit_windows`);
    await runner.query(`DROP TABLE catalog.counted_runs`);
    await runner.query(`DROP TABLE catalog.run_usage`);
    await runner.query(`DROP TABLE catalog.organization_plans`);
    await runner.query(`DROP TABLE catalog.skills`);
    await runner.query(`DROP TABLE catalog.projects`);
  }
}
