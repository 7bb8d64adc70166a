import type { MigrationInterface, QueryRunner } from 'typeorm';

export class EventsInitial1764500000000 implements MigrationInterface {
  name = 'EventsInitial1764500000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE SCHEMA IF NOT EXISTS "events"`);
    // Credentials are one AES-256-GCM box per row (docs/events.md); nothing else here is secret.
    await runner.query(`
      CREATE TABLE "events".connections (
        id uuid PRIMARY KEY,
        organization_id text NOT NULL,
        integration_id text NOT NULL,
        name text NOT NULL,
        credentials bytea NOT NULL,
        health text NOT NULL DEFAULT 'healthy',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(
      `CREATE INDEX connections_organization_id_idx ON "events".connections (organization_id, id)`,
    );

    // One row per App event trigger of a live version. Triggers with the same connection, trigger
    // and filter are one subscription: they are counted, and would be subscribed, together.
    await runner.query(`
      CREATE TABLE "events".trigger_bindings (
        workflow_id text NOT NULL,
        trigger_node_id text NOT NULL,
        organization_id text NOT NULL,
        connection_id uuid NOT NULL,
        trigger text NOT NULL,
        filter jsonb,
        filter_key text NOT NULL,
        status text NOT NULL,
        error text,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workflow_id, trigger_node_id)
      )`);
    await runner.query(
      `CREATE INDEX trigger_bindings_connection_idx ON "events".trigger_bindings (connection_id, trigger)`,
    );
    await runner.query(
      `CREATE INDEX trigger_bindings_organization_idx ON "events".trigger_bindings (organization_id, status)`,
    );

    await runner.query(`
      CREATE TABLE "events".app_events (
        id uuid PRIMARY KEY,
        organization_id text NOT NULL,
        connection_id uuid NOT NULL,
        trigger text NOT NULL,
        delivery_id text NOT NULL,
        payload text NOT NULL,
        fired_at timestamptz NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        listeners_resolved boolean NOT NULL DEFAULT false,
        fanned_out_at timestamptz,
        swept_at timestamptz,
        sweeps integer NOT NULL DEFAULT 0
      )`);
    // A redelivery (the same webhook-id to the same connection) is the same event.
    await runner.query(
      `CREATE UNIQUE INDEX app_events_delivery_key ON "events".app_events (connection_id, delivery_id)`,
    );
    await runner.query(`CREATE INDEX app_events_received_at_idx ON "events".app_events (received_at)`);
    await runner.query(
      `CREATE INDEX app_events_unfinished_idx ON "events".app_events (received_at) WHERE fanned_out_at IS NULL`,
    );

    // One row per trigger an event reached; outcome NULL while its fan-out is still deciding it.
    await runner.query(`
      CREATE TABLE "events".event_outcomes (
        event_id uuid NOT NULL REFERENCES "events".app_events (id) ON DELETE CASCADE,
        workflow_id text NOT NULL,
        trigger_node_id text NOT NULL,
        organization_id text NOT NULL,
        outcome text,
        run_id text,
        error text,
        at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (event_id, workflow_id, trigger_node_id)
      )`);
    await runner.query(
      `CREATE INDEX event_outcomes_workflow_idx ON "events".event_outcomes (workflow_id, event_id DESC)`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE "events".event_outcomes`);
    await runner.query(`DROP TABLE "events".app_events`);
    await runner.query(`DROP TABLE "events".trigger_bindings`);
    await runner.query(`DROP TABLE "events".connections`);
  }
}
