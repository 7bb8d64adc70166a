/**
 * The node types of a diagram and the shape of each one's `data.properties`.
 * String values are templates unless noted. The JSON schemas that enforce these shapes are in
 * `node-type-schemas.ts`.
 */

export const NODE_TYPES = [
  'trigger',
  'agent',
  'action',
  'condition',
  'database',
  'delay',
  'workflow',
  'code',
  'loop',
] as const;
export type NodeType = (typeof NODE_TYPES)[number];

export const TRIGGER_KINDS = ['manual', 'api', 'schedule', 'event'] as const;
export type TriggerKind = (typeof TRIGGER_KINDS)[number];

export const CONDITION_OPERATORS = [
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
  'greater_than',
  'less_than',
  'is_empty',
  'is_not_empty',
  'matches',
] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

/** Operators that read only `left`. */
export const UNARY_CONDITION_OPERATORS: readonly ConditionOperator[] = ['is_empty', 'is_not_empty'];

/** The `sourceHandle` values of the edges out of a condition node. */
export const CONDITION_HANDLES = ['true', 'false'] as const;

export const DELAY_MAX_SECONDS = 2_592_000;

export const CODE_LANGUAGES = ['javascript', 'typescript'] as const;
export type CodeLanguage = (typeof CODE_LANGUAGES)[number];

/** The names a code node's body reads its arguments by, in order. */
export const CODE_PARAMETERS = ['trigger', 'nodes', 'loop'] as const;

/** The longest `code` of a code node, in characters. */
export const CODE_MAX_LENGTH = 65_536;
/** What a code node's `timeoutMs` may ask for; the runner's `CODE_TIMEOUT_MS` applies when it asks nothing. */
export const CODE_TIMEOUT_MAX_MS = 30_000;
/** What a code node's `memoryMb` may ask for; the runner's `CODE_MEMORY_MB` applies when it asks nothing. */
export const CODE_MEMORY_MIN_MB = 4;
export const CODE_MEMORY_MAX_MB = 256;

/** Allowed on every node type, inside `data.properties`. Without it a failed step is not retried. */
export interface RetryPolicy {
  /** Further attempts after the first, 0 to 10. */
  attempts: number;
  /** Wait between attempts, 1 to 3600 seconds. */
  backoffSeconds: number;
}

interface CommonProperties {
  retry?: RetryPolicy;
}

export interface TriggerNodeProperties extends CommonProperties {
  kind: TriggerKind;
  /** Plain text, not a template. */
  label?: string;
  /** Schedule: five fields, evaluated in the version's time zone. */
  cron?: string;
  /** Event: the app connection and its trigger `<provider>/<trigger-name>`. */
  connectionId?: string;
  trigger?: string;
  /** Event: payload path → expected value. */
  filter?: Record<string, unknown>;
  /** Api or manual: the arguments' JSON schema of the workflow as an MCP tool (docs/mcp.md). */
  inputSchema?: Record<string, unknown>;
}

export interface AgentNodeProperties extends CommonProperties {
  agentId: string;
  /** Empty or absent: the text of the step before. */
  task?: string;
}

export interface ActionNodeProperties extends CommonProperties {
  /** `<provider>__<action>`. */
  action: string;
  /** Absent: resolved at publish (publish rule 4). */
  connectionId?: string;
  /** String leaves are templates. */
  input?: Record<string, unknown>;
  /** Extension: the action that undoes this one when its run rolls back. */
  compensate?: Compensation;
}

/** An action node's `compensate`: an action, its connection and input (templates), and its retries. */
export interface Compensation {
  action: string;
  connectionId?: string;
  input?: Record<string, unknown>;
  retry?: RetryPolicy;
}

export interface Condition {
  left: string;
  operator: ConditionOperator;
  /** Absent for `is_empty` and `is_not_empty`; an RE2 pattern for `matches` (see `compileMatchesPattern`). */
  right?: string;
}

export interface ConditionNodeProperties extends CommonProperties {
  conditions: Condition[];
  /** Default `all`. */
  match?: 'all' | 'any';
}

export type SqlParam = string | number | boolean | null | { blob: string };

export interface DatabaseNodeProperties extends CommonProperties {
  databaseId: string;
  /** One statement, plain text (not a template); `?` placeholders take `params`. */
  sql: string;
  /** String items are templates. */
  params?: SqlParam[];
}

/** Exactly one of `seconds` and `until`. */
export interface DelayNodeProperties extends CommonProperties {
  seconds?: number;
  /** A template giving an ISO 8601 time. */
  until?: string;
}

/** Extension: runs another workflow of the organization as a child run (docs/workflows.md). */
export interface WorkflowNodeProperties extends CommonProperties {
  /** Plain text, not a template: the workflow whose live version runs. */
  workflowId: string;
  /** The child's input (its `{{trigger}}`); absent: this run's own input, `{{trigger}}`. */
  input?: string;
  /** Default true: the step waits for the child and outputs its reply. */
  wait?: boolean;
}

/** A `workflow` node's `input` when it has none: the calling run's input is passed on as it is. */
export const WORKFLOW_NODE_DEFAULT_INPUT = '{{trigger}}';

/**
 * A function body run in a WebAssembly sandbox (docs/workflows.md, "Code"): it reads `trigger`,
 * `nodes` and `loop` and returns a JSON value, the step's `result`.
 */
export interface CodeNodeProperties extends CommonProperties {
  /** Plain text, not a template. */
  code: string;
  /** Default `javascript`; `typescript` has its types stripped before it runs. */
  language?: CodeLanguage;
  /** The time cap, 1 to CODE_TIMEOUT_MAX_MS. */
  timeoutMs?: number;
  /** The memory cap, CODE_MEMORY_MIN_MB to CODE_MEMORY_MAX_MB. */
  memoryMb?: number;
}

/**
 * Runs its body (the nodes its `body` edges reach) once per item, each iteration a child run
 * (`docs/workflows.md`, "Loops").
 */
export interface LoopNodeProperties {
  /** A template giving a JSON array of at most `LOOP_MAX_ITEMS` items. */
  items: string;
  /** Iterations unfinished at once, 1 to `LOOP_MAX_CONCURRENCY`; default 1. */
  concurrency?: number;
  /** Default false: a failed iteration fails the loop. True: its error is its entry in `results`. */
  continueOnError?: boolean;
}

export interface NodePropertiesByType {
  trigger: TriggerNodeProperties;
  agent: AgentNodeProperties;
  action: ActionNodeProperties;
  condition: ConditionNodeProperties;
  database: DatabaseNodeProperties;
  delay: DelayNodeProperties;
  workflow: WorkflowNodeProperties;
  code: CodeNodeProperties;
  loop: LoopNodeProperties;
}

export function isNodeType(value: unknown): value is NodeType {
  return typeof value === 'string' && (NODE_TYPES as readonly string[]).includes(value);
}
