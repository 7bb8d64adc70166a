export const MEMBER_ROLES = ['owner', 'admin', 'member'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** Who is calling: travels with every NATS request so each service scopes its queries. */
export interface Principal {
  organizationId: string;
  /** The signed-in member; null for an organization key. */
  userId: string | null;
  /** The organization key used; null for a session. */
  keyId: string | null;
  role: MemberRole;
}

/**
 * A service acting for an organization on its own initiative (a schedule falling due, a clean-up
 * after a delete), with no member or key behind it.
 */
export function servicePrincipal(organizationId: string): Principal {
  return { organizationId, userId: null, keyId: null, role: 'admin' };
}

export interface RpcErrorBody {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** The reply of every request/reply subject. */
export type RpcEnvelope<T> = { ok: true; data: T } | { ok: false; error: RpcErrorBody };

export const REQUEST_ID_HEADER = 'x-request-id';

/** The client's address as the gateway saw it, carried to the services for the audit log. */
export const CLIENT_ADDRESS_HEADER = 'x-client-address';
/** The client's User-Agent, carried to the services for the audit log. */
export const USER_AGENT_HEADER = 'x-user-agent';
