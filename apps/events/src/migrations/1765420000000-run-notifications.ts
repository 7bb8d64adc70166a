import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Run notifications (docs/notifications.md): endpoints, and one delivery per endpoint and run. */
export class RunNotifications1765420000000 implements MigrationInterface {
  name = 'RunNotifications1765420000000';

  async up(runner: QueryRunner): Promise<void> {
    // The signing secret is an AES-256-GCM box, as connection credentials are.
    await runner.query(`
      CREATE TABLE "events".notification_endpoints (
        id uuid PRIMARY KEY,
        organization_id text NOT NULL,
        name text NOT NULL,
        connection_id uuid NOT NULL,
        url text NOT NULL,
        secret bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(
      `CREATE INDEX notification_endpoints_organization_idx ON "events".notification_endpoints (organization_id, id)`,
    );

    // `body` is fixed when the delivery is recorded, so every attempt sends the same bytes.
    // `claim` is the attempt in flight: its outcome is recorded only by the claim that sent it.
    await runner.query(`
      CREATE TABLE "events".notification_deliveries (
        id uuid PRIMARY KEY,
        endpoint_id uuid NOT NULL REFERENCES "events".notification_endpoints (id) ON DELETE CASCADE,
        organization_id text NOT NULL,
        run_id text NOT NULL,
        workflow_id text NOT NULL,
        run_status text NOT NULL,
        body text NOT NULL,
        status text NOT NULL DEFAULT 'pending',
        attempts integer NOT NULL DEFAULT 0,
        outcomes jsonb NOT NULL DEFAULT '[]',
        last_response_status integer,
        last_error text,
        next_attempt_at timestamptz,
        claim uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX notification_deliveries_run_key ON "events".notification_deliveries (endpoint_id, run_id)`,
    );
    await runner.query(
      `CREATE INDEX notification_deliveries_endpoint_idx ON "events".notification_deliveries (endpoint_id, id DESC)`,
    );
    await runner.query(
      `CREATE INDEX notification_deliveries_due_idx ON "events".notification_deliveries (next_attempt_at) WHERE status = 'pending'`,
    );
    await runner.query(
      `CREATE INDEX notification_deliveries_created_idx ON "events".notification_deliveries (created_at)`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE "events".notification_deliveries`);
    await runner.query(`DROP TABLE "events".notification_endpoints`);
  }
}
