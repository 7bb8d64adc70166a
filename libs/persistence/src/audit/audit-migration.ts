/**
 * The statements that make (`up`) and remove (`down`) `<schema>.audit_entries`, for each owning
 * service's migration. The table is append-only: a trigger refuses every UPDATE, and the only DELETE
 * is retention's (`AuditLog.deleteExpired`).
 */
export function auditEntriesMigration(schema: string): { up: string[]; down: string[] } {
  const table = `${schema}.audit_entries`;
  const refuse = `${schema}.audit_entries_refuse_update`;
  return {
    up: [
      `CREATE TABLE ${table} (
        id uuid PRIMARY KEY,
        organization_id text NOT NULL,
        at timestamptz NOT NULL,
        actor_type text NOT NULL CHECK (actor_type IN ('member', 'key', 'service')),
        actor_id text,
        action text NOT NULL,
        resource_type text NOT NULL,
        resource_id text NOT NULL,
        resource_name text,
        details jsonb NOT NULL DEFAULT '{}'::jsonb,
        client_address text,
        user_agent text,
        request_id text
      )`,
      // The list walks an organization's entries newest first; retention walks them by age.
      `CREATE INDEX audit_entries_organization_at ON ${table} (organization_id, at DESC, id DESC)`,
      `CREATE INDEX audit_entries_at ON ${table} (at)`,
      `CREATE FUNCTION ${refuse}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          RAISE EXCEPTION 'audit entries are append-only';
        END
      $$`,
      `CREATE TRIGGER audit_entries_append_only BEFORE UPDATE ON ${table}
        FOR EACH ROW EXECUTE FUNCTION ${refuse}()`,
    ],
    down: [`DROP TABLE ${table}`, `DROP FUNCTION ${refuse}()`],
  };
}
