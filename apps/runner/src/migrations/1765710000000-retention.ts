import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Operator-set retention of step payloads and run diagrams (docs/retention.md). Trimmed rows stay,
 * marked by when they were trimmed, so a run's history and every count stay as they were. The new
 * columns are nullable without a default: adding them rewrites nothing, however many runs there are.
 *
 * The purge walks each organization's runs oldest first by id (`runs_organization_idx`) from a
 * watermark per organization and kind, so it never reads a run twice. A run it passed while it was
 * still live (a paused run, a long delay, a child whose parent still runs) is remembered in
 * `retention_pending` and trimmed once it and its parent have ended.
 */
export class Retention1765710000000 implements MigrationInterface {
  name = 'Retention1765710000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE runner.run_steps ADD COLUMN payload_trimmed_at timestamptz`);
    await runner.query(`ALTER TABLE runner.runs ADD COLUMN diagram_trimmed_at timestamptz`);
    await runner.query(`
      CREATE TABLE runner.retention_progress (
        organization_id text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('step_payload', 'diagram')),
        last_run_id uuid,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, kind)
      )`);
    await runner.query(`
      CREATE TABLE runner.retention_pending (
        organization_id text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('step_payload', 'diagram')),
        run_id uuid NOT NULL REFERENCES runner.runs (id) ON DELETE CASCADE,
        PRIMARY KEY (organization_id, kind, run_id)
      )`);
    // What a trimmed diagram keeps: each node's id, position, type and label (a trigger's `label`
    // property, or a `data.label` of the drawing), and every edge whole, so the run still draws and
    // still has the contract's Diagram shape; every other property of a node, which may hold
    // templates, keys and the text of queries, goes, and so does everything beside `nodes` and
    // `edges` (`settings`). In SQL, so the purge sends no diagram through the runner.
    await runner.query(`
      CREATE FUNCTION runner.trimmed_diagram(diagram json) RETURNS json
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT json_build_object(
          'nodes', coalesce((
            SELECT json_agg((
              jsonb_build_object('id', n -> 'id')
              || CASE WHEN n -> 'position' IS NULL THEN '{}'::jsonb
                      ELSE jsonb_build_object('position', n -> 'position') END
              || jsonb_build_object('data',
                   jsonb_build_object(
                     'type', n -> 'data' -> 'type',
                     'properties',
                       CASE WHEN json_typeof(n -> 'data' -> 'properties' -> 'label') = 'string'
                            THEN jsonb_build_object('label', n -> 'data' -> 'properties' -> 'label')
                            ELSE '{}'::jsonb END)
                   || CASE WHEN n -> 'data' -> 'label' IS NULL THEN '{}'::jsonb
                           ELSE jsonb_build_object('label', n -> 'data' -> 'label') END)
            )::json ORDER BY i)
            FROM json_array_elements(diagram -> 'nodes') WITH ORDINALITY AS node(n, i)), '[]'::json),
          'edges', coalesce(diagram -> 'edges', '[]'::json))
      $$`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP FUNCTION runner.trimmed_diagram(json)`);
    await runner.query(`DROP TABLE runner.retention_pending`);
    await runner.query(`DROP TABLE runner.retention_progress`);
    await runner.query(`ALTER TABLE runner.runs DROP COLUMN diagram_trimmed_at`);
    await runner.query(`ALTER TABLE runner.run_steps DROP COLUMN payload_trimmed_at`);
  }
}
