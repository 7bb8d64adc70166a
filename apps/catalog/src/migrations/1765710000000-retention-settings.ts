import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How long runs keep their step payloads and diagrams in full (docs/retention.md), set by the
 * operator per plan (`scope_id` a plan id) or per organization (`scope_id` its id). One row per
 * scope and kind: no row is "not set" (a plan keeps everything, an organization follows its plan);
 * `days` null is an explicit "keep", which lets an organization keep what its plan trims.
 */
export class RetentionSettings1765710000000 implements MigrationInterface {
  name = 'RetentionSettings1765710000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE catalog.retention_settings (
        scope text NOT NULL CHECK (scope IN ('plan', 'organization')),
        scope_id text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('step_payload', 'diagram')),
        days integer CHECK (days IS NULL OR days >= 1),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (scope, scope_id, kind)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE catalog.retention_settings`);
  }
}
