import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import { FLOW_CONTROL_SETTINGS_SCHEMA } from './flow-control.js';
import { DIAGRAM_NOTIFICATIONS_MAX, NOTIFIED_RUN_STATUSES } from '../notifications/notification-limits.js';
import { DIAGRAM_ID_MAX_LENGTH, type Diagram } from './diagram.js';
import { LOOP_MAX_CONCURRENCY, LOOP_MAX_ITEMS } from './loop-body.js';
import { MATCHES_PATTERN_MAX_LENGTH } from './matches-pattern.js';
import {
  CODE_LANGUAGES,
  CODE_MAX_LENGTH,
  CODE_MEMORY_MAX_MB,
  CODE_MEMORY_MIN_MB,
  CODE_TIMEOUT_MAX_MS,
  CONDITION_OPERATORS,
  DELAY_MAX_SECONDS,
  type NodeType,
  TRIGGER_KINDS,
  UNARY_CONDITION_OPERATORS,
} from './node-types.js';

/**
 * JSON Schemas (draft 2020-12 subset that Ajv's default draft also reads) for the diagram and for
 * each node type's `data.properties`. They validate diagrams and are published as they are in the
 * OpenAPI document, so the reference and the validator cannot disagree.
 *
 * Properties a schema does not name are allowed and kept: the contract allows extra properties at
 * every level of a diagram, and a builder may keep its own state beside the ones the engine reads.
 */
export type JsonSchema = Record<string, unknown>;

const template = (description: string): JsonSchema => ({ type: 'string', description });

const retry: JsonSchema = {
  type: 'object',
  description: 'Retries of a failed step. Without it a failed step fails the run at once.',
  properties: {
    attempts: { type: 'integer', minimum: 0, maximum: 10, description: 'Further attempts after the first.' },
    backoffSeconds: { type: 'number', minimum: 1, maximum: 3600, description: 'Wait between attempts.' },
  },
  required: ['attempts', 'backoffSeconds'],
};

const cron: JsonSchema = {
  type: 'string',
  description: 'Schedule: minute hour day-of-month month day-of-week, e.g. `0 9 * * 1-5`.',
  examples: ['0 9 * * 1-5'],
};
const eventConnectionId: JsonSchema = {
  type: 'string',
  minLength: 1,
  description: 'Event: the app connection.',
};
const eventTrigger: JsonSchema = {
  type: 'string',
  pattern: '^[^/\\s]+/[^/\\s]+$',
  description: 'Event: the app trigger, `<provider>/<trigger-name>`.',
  examples: ['webhook/received'],
};

// A conditional requirement names its property again (the same schema object, so the two cannot
// differ): readers of the reference, and linters that do not follow if/then, see what is required.
const trigger: JsonSchema = {
  title: 'TriggerNodeProperties',
  description:
    "Starts a run. `schedule` needs `cron` (five fields, in the published version's `timeZone`); `event` needs `connectionId` and `trigger`. Output field: `payload`.",
  type: 'object',
  properties: {
    kind: { enum: [...TRIGGER_KINDS] },
    label: { type: 'string', maxLength: 100, description: 'Plain text shown when choosing a trigger.' },
    cron,
    connectionId: eventConnectionId,
    trigger: eventTrigger,
    filter: {
      type: 'object',
      additionalProperties: true,
      description: 'Event: payload path → expected value; events that differ do not start a run.',
    },
    inputSchema: {
      type: 'object',
      additionalProperties: true,
      description:
        'Api or manual: the JSON schema (`"type": "object"`) of the arguments of this workflow as an MCP tool (`settings.mcp`); a call\'s arguments become the run\'s input as JSON. Without it the tool takes one free text, `input`, as the run\'s input (docs/mcp.md).',
    },
    retry,
  },
  required: ['kind'],
  allOf: [
    {
      if: { properties: { kind: { const: 'schedule' } }, required: ['kind'] },
      then: { properties: { cron }, required: ['cron'] },
    },
    {
      if: { properties: { kind: { const: 'event' } }, required: ['kind'] },
      then: {
        properties: { connectionId: eventConnectionId, trigger: eventTrigger },
        required: ['connectionId', 'trigger'],
      },
    },
  ],
};

const agent: JsonSchema = {
  title: 'AgentNodeProperties',
  description:
    "Runs one of the organization's agents unattended. Output fields: `response`, `thread`, `tools`, `approvals`.",
  type: 'object',
  properties: {
    agentId: { type: 'string', minLength: 1, description: "One of the organization's agents." },
    task: template('What the agent is asked to do; empty: the text of the step before.'),
    retry,
  },
  required: ['agentId'],
};

/** An app action, `<provider>__<action>`: what an action node calls, and what its compensation calls. */
const actionRef: JsonSchema = {
  type: 'string',
  pattern: '^[A-Za-z0-9][A-Za-z0-9-]*__[A-Za-z0-9][A-Za-z0-9_-]*$',
  description: '`<provider>__<action>`.',
  examples: ['http__request'],
};

const connectionId = (description: string): JsonSchema => ({ type: 'string', minLength: 1, description });

const actionInput = (description: string): JsonSchema => ({
  type: 'object',
  additionalProperties: true,
  description,
});

const action: JsonSchema = {
  title: 'ActionNodeProperties',
  description: 'Calls an app action. Output fields: `result` (JSON text), `status`.',
  type: 'object',
  properties: {
    action: actionRef,
    connectionId: connectionId(
      "The app connection. Absent: the trigger's own connection when it is the same app's, else the app's only connection.",
    ),
    input: actionInput("The action's input; string leaves are templates."),
    retry,
    compensate: {
      type: 'object',
      description:
        'Extension: the action that undoes this one when the run rolls back (a diagram with `settings.onError: "rollback"` that fails, or a cancel with `rollback: true`). Its templates may read this node\'s own output, `{{nodes.<this id>.result}}`. Retried per its `retry` (default 2 further attempts, 1 s apart).',
      properties: {
        action: actionRef,
        connectionId: connectionId("The app connection; absent, chosen as for the node's own action."),
        input: actionInput("The compensating action's input; string leaves are templates."),
        retry,
      },
      required: ['action'],
    },
  },
  required: ['action'],
};

const conditionRight = template(
  `The value compared with. For \`matches\`: an RE2 pattern, bare or as \`/pattern/flags\` with flags i, m and s, up to ${MATCHES_PATTERN_MAX_LENGTH} characters once rendered.`,
);

const condition: JsonSchema = {
  title: 'ConditionNodeProperties',
  description:
    'Fires its edges with `sourceHandle` `true` when the conditions hold, else those with `false`. Output field: `result`.',
  type: 'object',
  properties: {
    conditions: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: {
          left: template('The value tested.'),
          operator: { enum: [...CONDITION_OPERATORS] },
          right: conditionRight,
        },
        required: ['left', 'operator'],
        if: { properties: { operator: { enum: [...UNARY_CONDITION_OPERATORS] } } },
        else: { properties: { right: conditionRight }, required: ['right'] },
      },
    },
    match: { enum: ['all', 'any'], default: 'all' },
    retry,
  },
  required: ['conditions'],
};

const database: JsonSchema = {
  title: 'DatabaseNodeProperties',
  description:
    "Runs one SQL statement on one of the organization's databases. Output fields: `rows` (JSON text), `rowCount`, `rowsWritten`.",
  type: 'object',
  properties: {
    databaseId: { type: 'string', minLength: 1 },
    sql: { type: 'string', minLength: 1, maxLength: 100_000, description: 'One statement, plain text.' },
    params: {
      type: 'array',
      maxItems: 100,
      description: 'Bound to `?` placeholders in order; string items are templates.',
      items: {
        anyOf: [
          { type: ['string', 'number', 'boolean', 'null'] },
          {
            type: 'object',
            properties: { blob: { type: 'string', description: 'Base64.' } },
            required: ['blob'],
            additionalProperties: false,
          },
        ],
      },
    },
    retry,
  },
  required: ['databaseId', 'sql'],
};

const delay: JsonSchema = {
  title: 'DelayNodeProperties',
  description: 'Waits, then goes on. Exactly one of `seconds` and `until`. Output field: `until`.',
  type: 'object',
  properties: {
    seconds: { type: 'number', minimum: 1, maximum: DELAY_MAX_SECONDS },
    until: { type: 'string', minLength: 1, description: 'A template giving an ISO 8601 time.' },
    retry,
  },
  oneOf: [{ required: ['seconds'] }, { required: ['until'] }],
};

const workflow: JsonSchema = {
  title: 'WorkflowNodeProperties',
  description:
    "Extension: runs the live (published) version of another workflow of the organization as a child run, counted against the plan like any run. With `wait` (default), the step waits for the child and fails when it fails; without, it goes on at once. Output fields: `runId`, `status`, and `reply` (the child's reply, when waited for).",
  type: 'object',
  properties: {
    workflowId: {
      type: 'string',
      minLength: 1,
      maxLength: DIAGRAM_ID_MAX_LENGTH,
      description: "One of the organization's workflows (plain text, not a template); checked at publish.",
    },
    input: template(
      "The child run's input, which its `{{trigger}}` reads. Default `{{trigger}}`: this run's own input.",
    ),
    wait: {
      type: 'boolean',
      default: true,
      description:
        "True: wait for the child to end; its `reply` is this step's, and its failure fails this step. False: record the child's run id and go on.",
    },
    retry,
  },
  required: ['workflowId'],
};

const code: JsonSchema = {
  title: 'CodeNodeProperties',
  description:
    'Runs a JavaScript or TypeScript function body in a WebAssembly sandbox, with no file, network or process access: it reads `trigger`, `nodes` and `loop` and `return`s a JSON value. Output field: `result` (JSON text).',
  type: 'object',
  properties: {
    code: {
      type: 'string',
      minLength: 1,
      maxLength: CODE_MAX_LENGTH,
      contentMediaType: 'text/javascript',
      description:
        'The body of an async function, plain text (not a template): `return` its result; `await` works. Reads `trigger` (the input, parsed when it is JSON), `nodes.<id>.<field>` (output fields, parsed when they are JSON) and `loop` (`{item, index}` inside a loop).',
      examples: ['return nodes.query.rows.map((row) => row.email);'],
    },
    language: {
      enum: [...CODE_LANGUAGES],
      default: 'javascript',
      description: '`typescript`: types are stripped before the code runs; nothing is type-checked.',
    },
    timeoutMs: {
      type: 'integer',
      minimum: 1,
      maximum: CODE_TIMEOUT_MAX_MS,
      description: "The time cap, in milliseconds; absent, the runner's `CODE_TIMEOUT_MS` (1000).",
    },
    memoryMb: {
      type: 'integer',
      minimum: CODE_MEMORY_MIN_MB,
      maximum: CODE_MEMORY_MAX_MB,
      description: "The memory cap, in MiB, input included; absent, the runner's `CODE_MEMORY_MB` (32).",
    },
    retry,
  },
  required: ['code'],
};

const loop: JsonSchema = {
  title: 'LoopNodeProperties',
  description: `Runs its body once per item of \`items\`, each iteration a run of its own (listed by \`GET /api/v1/runs/{id}/children?nodeId=<loop>\`). The body is what the loop's edges with \`sourceHandle: "body"\` reach; its other edges go on after the last iteration. Inside the body: \`{{loop.item}}\`, \`{{loop.index}}\` and the steps before the loop. Output fields: \`results\` (JSON text: each iteration's reply, in item order), \`count\`, \`failed\`.`,
  type: 'object',
  properties: {
    items: {
      type: 'string',
      minLength: 1,
      description: `A template giving a JSON array of at most ${LOOP_MAX_ITEMS} items, e.g. \`{{nodes.query.rows}}\`.`,
      examples: ['{{nodes.query.rows}}'],
    },
    concurrency: {
      type: 'integer',
      minimum: 1,
      maximum: LOOP_MAX_CONCURRENCY,
      default: 1,
      description: 'Iterations unfinished at once.',
    },
    continueOnError: {
      type: 'boolean',
      default: false,
      description:
        "False: a failed iteration fails the loop and the iterations still running are cancelled. True: the loop goes on and the failed iteration's entry in `results` is `{error, runId}`.",
    },
  },
  required: ['items'],
};

export const NODE_TYPE_SCHEMAS: Record<NodeType, JsonSchema> = {
  trigger,
  agent,
  action,
  condition,
  database,
  delay,
  workflow,
  code,
  loop,
};

const diagramId = (description: string): JsonSchema => ({
  type: 'string',
  minLength: 1,
  maxLength: DIAGRAM_ID_MAX_LENGTH,
  description,
});

/** The contract's Diagram: only what the service reads is constrained, anything else round-trips. */
export const DIAGRAM_SCHEMA: JsonSchema = {
  title: 'Diagram',
  description:
    'Nodes and edges. Extra layout properties are allowed at every level and are returned unchanged. `data.properties` of each node type: see the `*NodeProperties` schemas.',
  type: 'object',
  properties: {
    nodes: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: diagramId('Unique among the nodes; steps, templates and edges name the node by it.'),
          data: {
            type: 'object',
            properties: {
              type: {
                type: 'string',
                description: 'trigger, agent, action, condition, database, delay, workflow, code or loop.',
              },
              properties: { type: 'object', additionalProperties: true },
            },
            required: ['type', 'properties'],
            additionalProperties: true,
          },
        },
        required: ['id', 'data'],
        additionalProperties: true,
      },
    },
    edges: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: diagramId('Unique among the edges.'),
          source: diagramId('The id of the node the edge leaves.'),
          target: diagramId('The id of the node the edge enters.'),
          sourceHandle: {
            type: ['string', 'null'],
            description:
              'Out of a condition node: `true` or `false`. Out of a loop node: `body` (into its body), or `done` or none (after its last iteration).',
          },
        },
        required: ['id', 'source', 'target'],
        additionalProperties: true,
      },
    },
  },
  required: ['nodes', 'edges'],
  additionalProperties: true,
};

export const ON_ERROR_POLICIES = ['stop', 'rollback'] as const;
export type OnErrorPolicy = (typeof ON_ERROR_POLICIES)[number];

/**
 * Extension: a diagram's `settings`, checked when it is published or run (a draft saves with any).
 * `onError: "rollback"`: a run that fails undoes its `done` actions through their `compensate`.
 * `errorWorkflowId`: the workflow a failed run starts (docs/workflows.md, "Error workflows"); that
 * it is another workflow of the organization is checked at publish, by the workflow service.
 */
export const DIAGRAM_SETTINGS_SCHEMA: JsonSchema = {
  title: 'DiagramSettings',
  type: 'object',
  properties: {
    onError: {
      type: 'string',
      enum: [...ON_ERROR_POLICIES],
      description:
        '`stop` (default): a failed run ends `errored`. `rollback`: it goes `rollingBack` first and runs the `compensate` of each `done` action, newest first.',
    },
    notifications: {
      type: 'array',
      maxItems: DIAGRAM_NOTIFICATIONS_MAX,
      description:
        'Notification endpoints (`/api/v1/notification-endpoints`) told when a run ends in one of `statuses`: a signed POST per endpoint and run, retried with backoff (docs/notifications.md). Each endpoint must exist in the organization when the workflow is published.',
      items: {
        type: 'object',
        properties: {
          endpointId: { type: 'string', minLength: 1, maxLength: MESSAGE_ID_MAX_LENGTH },
          statuses: {
            type: 'array',
            minItems: 1,
            uniqueItems: true,
            items: { enum: [...NOTIFIED_RUN_STATUSES] },
            description: 'The final run statuses to be told of.',
          },
        },
        required: ['endpointId', 'statuses'],
      },
    },
    ...FLOW_CONTROL_SETTINGS_SCHEMA,
    mcp: {
      type: 'object',
      properties: {
        enabled: {
          type: 'boolean',
          description:
            "`true` offers the live version as a tool on the organization's `/mcp` server (docs/mcp.md). Off by default.",
        },
      },
      required: ['enabled'],
      additionalProperties: false,
    },
    errorWorkflowId: {
      type: ['string', 'null'],
      minLength: 1,
      maxLength: DIAGRAM_ID_MAX_LENGTH,
      description:
        'Another workflow of the organization whose live version starts, once, when a run of a published version of this one ends `errored` (after its retries and any rollback), with a JSON input describing the failed run (docs/workflows.md, "Error workflows"). Null or absent: none. A run started this way starts no error workflow when it fails itself.',
    },
  },
  additionalProperties: true,
};

/** The error workflow a diagram's settings name, if any (the settings as validated at publish). */
export function errorWorkflowIdOf(diagram: Diagram): string | null {
  const id = (diagram.settings as { errorWorkflowId?: unknown } | null | undefined)?.errorWorkflowId;
  return typeof id === 'string' && id !== '' ? id : null;
}

const NODE_SCHEMA_NAMES: Record<NodeType, string> = {
  trigger: 'TriggerNodeProperties',
  agent: 'AgentNodeProperties',
  action: 'ActionNodeProperties',
  condition: 'ConditionNodeProperties',
  database: 'DatabaseNodeProperties',
  delay: 'DelayNodeProperties',
  workflow: 'WorkflowNodeProperties',
  code: 'CodeNodeProperties',
  loop: 'LoopNodeProperties',
};

/** The schemas as named OpenAPI components: `Diagram` and one `<Type>NodeProperties` per node type. */
export function workflowOpenApiSchemas(): Record<string, JsonSchema> {
  return {
    Diagram: DIAGRAM_SCHEMA,
    DiagramSettings: DIAGRAM_SETTINGS_SCHEMA,
    ...Object.fromEntries(
      Object.entries(NODE_TYPE_SCHEMAS).map(([type, schema]) => [
        NODE_SCHEMA_NAMES[type as NodeType],
        schema,
      ]),
    ),
  };
}
