import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ModelUsage1764900000000 implements MigrationInterface {
  name = 'ModelUsage1764900000000';

  async up(runner: QueryRunner): Promise<void> {
    // One row per model call, Agent step or chat turn. Not tied to the agent by a key: an organization's
    // usage of the month stays whole after an agent is deleted, under the name it had.
    await runner.query(`
      CREATE TABLE "agent".model_calls (
        id uuid PRIMARY KEY,
        organization_id text NOT NULL,
        agent_id uuid NOT NULL,
        agent_name text NOT NULL,
        provider text NOT NULL,
        model text NOT NULL,
        run_id text,
        node_id text,
        thread_id uuid,
        input_tokens integer NOT NULL,
        output_tokens integer NOT NULL,
        reasoning_tokens integer NOT NULL,
        cached_input_tokens integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The month's usage of an organization (what budgets read before a step's model calls, and reports).
    await runner.query(
      `CREATE INDEX model_calls_organization_idx ON "agent".model_calls (organization_id, created_at)`,
    );
    await runner.query(`CREATE INDEX model_calls_thread_idx ON "agent".model_calls (thread_id)`);
    // The tokens of the model call that produced an assistant message.
    await runner.query(`ALTER TABLE "agent".messages ADD COLUMN usage jsonb`);
    await runner.query(`ALTER TABLE "agent".agents ADD COLUMN monthly_token_budget bigint`);
    await runner.query(`
      CREATE TABLE "agent".budgets (
        organization_id text PRIMARY KEY,
        monthly_token_budget bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // `action`: an ask-first call; `budget`: a step that would pass a token budget waits for an owner.
    await runner.query(`ALTER TABLE "agent".approvals ADD COLUMN kind text NOT NULL DEFAULT 'action'`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE "agent".approvals DROP COLUMN kind`);
    await runner.query(`DROP TABLE "agent".budgets`);
    await runner.query(`ALTER TABLE "agent".agents DROP COLUMN monthly_token_budget`);
    await runner.query(`ALTER TABLE "agent".messages DROP COLUMN usage`);
    await runner.query(`DROP TABLE "agent".model_calls`);
  }
}
