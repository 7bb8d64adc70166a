import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The tool list each MCP connection keeps (docs/mcp.md): one row per connection, replaced whole on
 * each listing. Tools describe themselves and are no secret, so they sit beside the sealed
 * credentials rather than in them; the row goes with its connection.
 */
export class McpToolLists1765800000000 implements MigrationInterface {
  name = 'McpToolLists1765800000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE "events".mcp_tool_lists (
        connection_id uuid PRIMARY KEY REFERENCES "events".connections (id) ON DELETE CASCADE,
        organization_id text NOT NULL,
        tools jsonb NOT NULL,
        ignored jsonb NOT NULL DEFAULT '[]',
        refreshed_at timestamptz NOT NULL
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE "events".mcp_tool_lists`);
  }
}
