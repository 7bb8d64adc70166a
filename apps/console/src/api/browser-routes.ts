import type { JsonSchema } from '../editor/json-schema';

/**
 * The routes the console calls outside `/api/v1`, which the API document leaves out: the gateway's
 * session-only `/app/*`, better-auth's `/api/auth/*` and the document itself. Each entry names what
 * the route takes (`path`, `query`, `body`) and what it answers; `browserRequest` calls them by these
 * names, so no page declares an answer's type, and a change here shows at every caller.
 */
export interface BrowserRoutes {
  'GET /app/connections': { query: PageQuery; answer: Page<Connection> };
  'POST /app/connections': { body: NewConnection; answer: Connection };
  'PATCH /app/connections/{id}': {
    path: { id: string };
    body: { allowedOrigins: string[] };
    answer: Connection;
  };
  'POST /app/connections/{id}/sending-secret': { path: { id: string }; answer: { sendingSecret: string } };
  'DELETE /app/connections/{id}': { path: { id: string }; answer: unknown };
  /** An `mcp` connection's tools as its server last listed them (docs/mcp.md); 404 for another app's. */
  'GET /app/connections/{id}/tools': { path: { id: string }; answer: McpServerTools };
  /** Lists them again now; 503 `service_unavailable` while the server cannot be reached. */
  'POST /app/connections/{id}/refresh-tools': { path: { id: string }; answer: McpServerTools };

  'GET /app/agents/{id}/threads': { path: { id: string }; query: PageQuery; answer: Page<Thread> };
  'GET /app/agents/{id}/threads/{threadId}': { path: { id: string; threadId: string }; answer: ThreadDetail };

  /** The gateway's settings the console adapts to (docs/console.md). */
  'GET /app/settings': { answer: ConsoleSettings };

  'GET /app/keys': { answer: Page<ApiKey> };
  'POST /app/keys': { body: { name: string }; answer: ApiKey & { key: string } };
  'DELETE /app/keys/{id}': { path: { id: string }; answer: unknown };

  'POST /api/auth/sign-in/email': { body: { email: string; password: string }; answer: { token: string } };
  'POST /api/auth/sign-up/email': {
    body: { name: string; email: string; password: string };
    answer: { token: string };
  };
  /** `SIGNUP` of the installation: whether strangers may make an account. */
  'GET /api/auth/signup-mode': { answer: { mode: 'closed' | 'invite' | 'open' } };
  'POST /api/auth/sign-out': { answer: unknown };
  /** Null when signed out. */
  'GET /api/auth/get-session': { answer: SessionInfo | null };
  'GET /api/auth/organization/list': { answer: Organization[] };
  'GET /api/auth/organization/get-active-member': { answer: { role: string } | null };
  'POST /api/auth/organization/set-active': { body: { organizationId: string }; answer: unknown };

  'GET /api/auth/organization/list-members': {
    query: { limit: number };
    answer: { members: MemberRow[]; total: number };
  };
  'GET /api/auth/organization/list-invitations': { answer: InvitationRow[] };
  'POST /api/auth/organization/invite-member': {
    body: { email: string; role: Role; resend?: boolean };
    answer: InvitationRow;
  };
  'POST /api/auth/organization/cancel-invitation': { body: { invitationId: string }; answer: unknown };
  'POST /api/auth/organization/update-member-role': {
    body: { memberId: string; role: Role };
    answer: unknown;
  };
  'POST /api/auth/organization/remove-member': { body: { memberIdOrEmail: string }; answer: unknown };
  /** The link to hand over, when invitations are not emailed (`link` is null when they are). */
  'GET /api/auth/invitation/link': {
    query: { invitationId: string };
    answer: { emailed: boolean; link: string | null };
  };

  /** The invitee's side: the link's id and token are the proof, for this invitation and no other. */
  'GET /api/auth/invitation/preview': {
    query: { invitationId: string; token: string };
    answer: InvitationPreview;
  };
  'POST /api/auth/invitation/sign-up': {
    body: { invitationId: string; token: string; name: string; password: string };
    answer: { token: string };
  };
  'POST /api/auth/invitation/answer': {
    body: { invitationId: string; token: string; accept: boolean };
    answer: unknown;
  };

  /** The API document, whose `*NodeProperties` schemas the node forms are made from. */
  'GET /docs/openapi.json': { answer: { components: { schemas: Record<string, JsonSchema> } } };
}

export type BrowserRoute = keyof BrowserRoutes;

interface PageQuery {
  limit: number;
}

interface Page<T> {
  data: T[];
}

export interface Connection {
  id: string;
  integrationId: 'http' | 'webhook' | 'slack' | 'mcp';
  name: string;
  health: 'healthy' | 'unhealthy';
  /**
   * `http` with headers: where they may be sent; empty when nowhere yet. `mcp`: its server's origin,
   * the only one its credentials go to (not changeable).
   */
  allowedOrigins?: string[];
  createdAt: string;
  updatedAt: string;
  /** A webhook connection just made: its signing secret, shown this once. */
  secret?: string;
  /** A webhook connection just made: the secret `webhook__send` signs with, shown this once. */
  sendingSecret?: string;
}

/**
 * `config` is the integration's own: `http` `{headers, allowedOrigins}`, `slack` `{webhookUrl}`, `mcp`
 * `{url, bearerToken?, headers?}`.
 */
export interface NewConnection {
  integrationId: Connection['integrationId'];
  name: string;
  config?: Record<string, unknown>;
}

/** One tool an MCP server listed and its connection keeps; an agent is granted it as `mcp__<name>`. */
export interface McpServerTool {
  name: string;
  title?: string;
  description: string;
  /** The server's JSON Schema of its arguments, as it sent it: any shape, read defensively. */
  inputSchema: Record<string, unknown>;
}

/** The tool list an `mcp` connection keeps, with the tools it could not keep and why. */
export interface McpServerTools {
  connectionId: string;
  tools: McpServerTool[];
  ignored: Array<{ name: string; reason: string }>;
  refreshedAt: string;
}

export interface Thread {
  id: string;
  title: string;
  /** The run whose Agent step started it; null for a member's chat. */
  runId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ThreadDetail extends Thread {
  messages: Array<{ role: string; content: unknown; createdAt: string }>;
}

/** An organization key as listed: never the key itself, only how it starts. */
export interface ApiKey {
  id: string;
  name: string | null;
  start: string | null;
  createdAt: string;
  lastUsedAt: string | null;
}

export type Role = 'owner' | 'admin' | 'member';

export interface SessionInfo {
  user: { id: string; email: string; name: string };
  session: { activeOrganizationId?: string | null };
}

export interface Organization {
  id: string;
  name: string;
  slug: string;
}

export interface MemberRow {
  id: string;
  userId: string;
  role: string;
  createdAt: string;
  user: { id: string; email: string; name: string };
}

export interface InvitationRow {
  id: string;
  email: string;
  role: string;
  status: 'pending' | 'accepted' | 'rejected' | 'canceled';
  expiresAt: string;
  createdAt: string;
}

/** What the holder of an invitation's link learns before signing in. */
export interface InvitationPreview {
  email: string;
  role: string;
  organizationName: string;
  expiresAt: string;
  hasAccount: boolean;
  canCreateAccount: boolean;
}

export interface ConsoleSettings {
  /** `TRACE_VIEWER_URL`: a run's trace is this with `{traceId}` replaced; null when not configured. */
  traceViewerUrl: string | null;
}
