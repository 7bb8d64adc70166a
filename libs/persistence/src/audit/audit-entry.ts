import { currentRequestContext } from '#common';

/**
 * The audit log's shapes. Each owning service keeps its own `<schema>.audit_entries` table and writes
 * an entry in the transaction of the change it records (docs/audit.md); these types mirror the
 * contract's `AuditEntryDto`, which this library may not import.
 */
export type AuditActorType = 'member' | 'key' | 'service';

/** The caller as every service knows it (the contract's `Principal`), or null for the service itself. */
export interface AuditCaller {
  organizationId: string;
  userId: string | null;
  keyId: string | null;
}

/** What a service says about a change; who, when and from where are filled in by `recordAudit`. */
export interface AuditEvent {
  /** A stable dotted name: `workflow.published`, `run.cancelled`. */
  action: string;
  resource: { type: string; id: string; name?: string | null };
  /** A few facts; keys that look like secrets are dropped, long strings cut (`safeDetails`). */
  details?: Record<string, unknown>;
}

/** An entry as the list answers it: the contract's `AuditEntryDto`. */
export interface AuditEntry {
  id: string;
  at: string;
  actor: { type: AuditActorType; id: string | null };
  action: string;
  resource: { type: string; id: string; name: string | null };
  details: Record<string, unknown>;
  clientAddress: string | null;
  userAgent: string | null;
  requestId: string | null;
}

/** The row as the table holds it. */
export interface AuditRow {
  id: string;
  organization_id: string;
  at: Date;
  actor_type: string;
  actor_id: string | null;
  action: string;
  resource_type: string;
  resource_id: string;
  resource_name: string | null;
  details: unknown;
  client_address: string | null;
  user_agent: string | null;
  request_id: string | null;
}

export function actorOf(caller: AuditCaller | null): { type: AuditActorType; id: string | null } {
  if (caller?.userId) return { type: 'member', id: caller.userId };
  if (caller?.keyId) return { type: 'key', id: caller.keyId };
  return { type: 'service', id: null };
}

/** Detail keys that could hold a secret: such a value is never written, whatever a caller passes. */
const SECRET_KEY = /secret|password|passwd|token|credential|private|api_?key|authorization|cookie/i;
const MAX_DETAIL_TEXT = 200;
const MAX_DETAIL_DEPTH = 3;

/**
 * The details as stored: no secret-looking keys, strings cut to 200 characters, nesting to 3 levels.
 * A safety net under the rule that services pass only names, ids and counts.
 */
export function safeDetails(details: unknown, depth = 0): unknown {
  if (typeof details === 'string') {
    return details.length > MAX_DETAIL_TEXT ? `${details.slice(0, MAX_DETAIL_TEXT)}…` : details;
  }
  if (details === null || typeof details !== 'object') return details;
  if (depth >= MAX_DETAIL_DEPTH) return null;
  if (Array.isArray(details)) return details.slice(0, 20).map((item) => safeDetails(item, depth + 1));
  return Object.fromEntries(
    Object.entries(details)
      .filter(([key, value]) => !SECRET_KEY.test(key) && value !== undefined)
      .map(([key, value]) => [key, safeDetails(value, depth + 1)]),
  );
}

/** Who, what and from where, ready to insert: the request's context comes from `requestContext`. */
export function auditRowOf(id: string, caller: AuditCaller, event: AuditEvent): Omit<AuditRow, 'at'> {
  const actor = actorOf(caller);
  const context = currentRequestContext();
  return {
    id,
    organization_id: caller.organizationId,
    actor_type: actor.type,
    actor_id: actor.id,
    action: event.action,
    resource_type: event.resource.type,
    resource_id: event.resource.id,
    resource_name: event.resource.name ?? null,
    details: safeDetails(event.details ?? {}),
    client_address: context?.clientAddress?.slice(0, 100) ?? null,
    user_agent: context?.userAgent?.slice(0, 500) ?? null,
    request_id: context?.requestId?.slice(0, 200) ?? null,
  };
}

export function toAuditEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: { type: row.actor_type as AuditActorType, id: row.actor_id },
    action: row.action,
    resource: { type: row.resource_type, id: row.resource_id, name: row.resource_name },
    details: (row.details ?? {}) as Record<string, unknown>,
    clientAddress: row.client_address,
    userAgent: row.user_agent,
    requestId: row.request_id,
  };
}
