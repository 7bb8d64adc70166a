import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Assistant1765700000000 implements MigrationInterface {
  name = 'Assistant1765700000000';

  async up(runner: QueryRunner): Promise<void> {
    // A member's conversation with the assistant: theirs alone, continued by its id. `turns` keeps
    // each question, the answer's text and its last proposal: what later turns send the model again.
    await runner.query(`
      CREATE TABLE "agent".assistant_conversations (
        id uuid PRIMARY KEY,
        organization_id text NOT NULL,
        user_id text NOT NULL,
        workflow_id text,
        turns jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(
      `CREATE INDEX assistant_conversations_member_idx ON "agent".assistant_conversations (organization_id, user_id, updated_at)`,
    );
    // The assistant's model calls count in the organization's usage with no agent.
    await runner.query(`ALTER TABLE "agent".model_calls ALTER COLUMN agent_id DROP NOT NULL`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DELETE FROM "agent".model_calls WHERE agent_id IS NULL`);
    await runner.query(`ALTER TABLE "agent".model_calls ALTER COLUMN agent_id SET NOT NULL`);
    await runner.query(`DROP TABLE "agent".assistant_conversations`);
  }
}
