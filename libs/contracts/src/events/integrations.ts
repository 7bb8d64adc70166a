/**
 * The built-in integrations of the events service (DESIGN.md section 4): what each can be triggered by
 * and what it can do. Refs are what diagrams name: a trigger `<provider>/<trigger>`, an action
 * `<provider>__<action>`. An external app-connection service would add its own under the same rules.
 */
export const INTEGRATIONS = {
  http: { triggers: [], actions: ['request'] },
  webhook: { triggers: ['received'], actions: ['send'] },
  slack: { triggers: [], actions: ['post_message'] },
  // An MCP server's actions are its tools, listed by the server itself (docs/mcp.md): none is built in.
  mcp: { triggers: [], actions: [] },
} as const satisfies Record<string, { triggers: readonly string[]; actions: readonly string[] }>;

export type IntegrationId = keyof typeof INTEGRATIONS;
export const INTEGRATION_IDS = Object.keys(INTEGRATIONS) as IntegrationId[];

export function isIntegrationId(value: unknown): value is IntegrationId {
  return typeof value === 'string' && Object.hasOwn(INTEGRATIONS, value);
}

/**
 * The tool names an `mcp__<tool>` ref carries: MCP's own rule for tool names (letters of either case,
 * digits, `_`, `-` and `.`, 1 to 128 of them; SEP-986). A server's tool named otherwise is listed
 * as ignored and cannot be granted.
 */
export const MCP_TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/** The provider part of an MCP tool's ref: `mcp__<tool>`. */
export const MCP_REF_PREFIX = 'mcp__';

/**
 * What an action ref looks like, for a message to check before any lookup: a built-in
 * `<provider>__<action>`, or `mcp__<tool>` with the tool's name as its server spells it.
 */
export const ACTION_REF_PATTERN =
  /^(?:(?!mcp__)[a-z][a-z0-9_-]*__[a-z][a-z0-9_]*|mcp__[A-Za-z0-9_.-]{1,128})$/;

/**
 * `http__request` → `{provider: 'http', action: 'request'}`, `mcp__Search.docs` → `{provider: 'mcp',
 * action: 'Search.docs'}`; null when it is not an action ref. An MCP tool's name keeps its case and
 * may itself hold `__`, so everything after the first `mcp__` is the tool.
 */
export function parseActionRef(ref: string): { provider: string; action: string } | null {
  if (ref.startsWith(MCP_REF_PREFIX)) {
    const tool = ref.slice(MCP_REF_PREFIX.length);
    return MCP_TOOL_NAME_PATTERN.test(tool) ? { provider: 'mcp', action: tool } : null;
  }
  const match = /^([a-z][a-z0-9_-]*)__([a-z][a-z0-9_]*)$/.exec(ref);
  return match ? { provider: match[1] ?? '', action: match[2] ?? '' } : null;
}

/** `mcp__<tool>` for an MCP server's tool. */
export const mcpToolRef = (tool: string): string => `${MCP_REF_PREFIX}${tool}`;

/** Whether `ref` names an MCP server's tool (well formed; whether the server has it is the list's to say). */
export function isMcpToolRef(ref: string): boolean {
  return parseActionRef(ref)?.provider === 'mcp';
}

/** `webhook/received` → `{provider: 'webhook', trigger: 'received'}`; null when it is not a trigger ref. */
export function parseTriggerRef(ref: string): { provider: string; trigger: string } | null {
  const match = /^([a-z][a-z0-9_-]*)\/([a-z][a-z0-9_.-]*)$/.exec(ref);
  return match ? { provider: match[1] ?? '', trigger: match[2] ?? '' } : null;
}

/**
 * Whether the built-in integration `provider` has the action `action`. An MCP server's tools are not
 * built in: workflows' Action nodes cannot name them; agents are granted them (`isMcpToolRef`).
 */
export function hasAction(provider: string, action: string): boolean {
  return isIntegrationId(provider) && (INTEGRATIONS[provider].actions as readonly string[]).includes(action);
}

/** Whether the built-in integration `provider` has the trigger `trigger`. */
export function hasTrigger(provider: string, trigger: string): boolean {
  return (
    isIntegrationId(provider) && (INTEGRATIONS[provider].triggers as readonly string[]).includes(trigger)
  );
}

export interface ConnectionSummary {
  id: string;
  integrationId: string;
}

/**
 * Publish rule 4, and the runner's choice at run time: the connection an Action uses. Its own
 * `connectionId` when it names one; else the connection of the trigger the run started from when that
 * trigger is the same app's; else the organization's only connection of the app. Null when none fits
 * (no connection of the app, or several and nothing to choose between them).
 */
export function resolveActionConnection(
  provider: string,
  named: string | undefined,
  triggerConnection: ConnectionSummary | undefined,
  connections: readonly ConnectionSummary[],
): ConnectionSummary | null {
  if (named !== undefined && named !== '') {
    return (
      connections.find((connection) => connection.id === named && connection.integrationId === provider) ??
      null
    );
  }
  if (triggerConnection?.integrationId === provider) return triggerConnection;
  const ofApp = connections.filter((connection) => connection.integrationId === provider);
  return ofApp.length === 1 ? (ofApp[0] ?? null) : null;
}

/** A JSON Schema, as given to a model for a tool's input. */
export type ActionInputSchema = Record<string, unknown>;

const headers = {
  type: 'object',
  additionalProperties: { type: 'string' },
  description: 'HTTP headers to send, name → value.',
};

/**
 * The input of each built-in action, as JSON Schema: what an agent's model is told a tool takes (the
 * events service still checks every input itself).
 */
export const ACTION_INPUT_SCHEMAS: Record<string, { description: string; input: ActionInputSchema }> = {
  http__request: {
    description: 'Sends an HTTP request and returns the status, headers and body of the answer.',
    input: {
      type: 'object',
      properties: {
        method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] },
        url: { type: 'string', description: 'An absolute http(s) URL.' },
        headers,
        body: { description: 'Text as it is, anything else as JSON.' },
        timeoutMs: { type: 'integer', minimum: 100, maximum: 120_000 },
      },
      required: ['url'],
    },
  },
  webhook__send: {
    description: 'POSTs a JSON body to a URL, signed with the connection’s sending secret.',
    input: {
      type: 'object',
      properties: { url: { type: 'string' }, body: { description: 'Any JSON value.' }, headers },
      required: ['url', 'body'],
    },
  },
  slack__post_message: {
    description: 'Posts a message to the Slack channel of the connection.',
    input: {
      type: 'object',
      properties: { text: { type: 'string' }, blocks: { type: 'array', items: { type: 'object' } } },
      required: ['text'],
    },
  },
};
