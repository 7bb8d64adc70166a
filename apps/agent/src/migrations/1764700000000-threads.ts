import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Threads1764700000000 implements MigrationInterface {
  name = 'Threads1764700000000';

  async up(runner: QueryRunner): Promise<void> {
    // A thread goes with its agent: deleting the agent deletes its threads and their messages.
    await runner.query(`
      CREATE TABLE "agent".threads (
        id uuid PRIMARY KEY,
        organization_id text NOT NULL,
        agent_id uuid NOT NULL REFERENCES "agent".agents (id) ON DELETE CASCADE,
        title text NOT NULL,
        run_id text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`CREATE INDEX threads_agent_idx ON "agent".threads (agent_id, id)`);
    // Messages as the AI SDK models them (user, assistant with tool calls, tool results), in order.
    await runner.query(`
      CREATE TABLE "agent".messages (
        thread_id uuid NOT NULL REFERENCES "agent".threads (id) ON DELETE CASCADE,
        position integer NOT NULL,
        role text NOT NULL,
        content jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (thread_id, position)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE "agent".messages`);
    await runner.query(`DROP TABLE "agent".threads`);
  }
}
