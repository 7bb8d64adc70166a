import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AgentInitial1764600000000 implements MigrationInterface {
  name = 'AgentInitial1764600000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE SCHEMA IF NOT EXISTS "agent"`);
    // Grants are kept as the member wrote them; they are checked against their owners when written.
    await runner.query(`
      CREATE TABLE "agent".agents (
        id uuid PRIMARY KEY,
        organization_id text NOT NULL,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        instructions text NOT NULL DEFAULT '',
        provider text NOT NULL,
        model text NOT NULL DEFAULT '',
        thinking_level text NOT NULL,
        apps jsonb NOT NULL DEFAULT '[]',
        skills text[] NOT NULL DEFAULT '{}',
        databases text[] NOT NULL DEFAULT '{}',
        database_writes text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX agents_organization_name_key ON "agent".agents (organization_id, name)`,
    );
    await runner.query(`CREATE INDEX agents_organization_id_idx ON "agent".agents (organization_id, id)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE "agent".agents`);
  }
}
