import type { FlowControl } from '#contracts';
import type {
  ActionNodeProperties,
  CodeNodeProperties,
  Condition,
  ConditionNodeProperties,
  DatabaseNodeProperties,
  DelayNodeProperties,
  LoopNodeProperties,
  NodePropertiesByType,
  NodeType,
  RetryPolicy,
  TriggerNodeProperties,
  WorkflowNodeProperties,
} from '#contracts';

/*
 * Builders for workflow diagrams in tests: the node types of DESIGN.md, section 3. Type aliases
 * rather than interfaces, so that a diagram is assignable to the document's `Diagram`, which allows
 * extra properties at every level.
 */
export type TestNode = {
  id: string;
  data: { type: string; properties: Record<string, unknown> };
};

export type TestEdge = {
  id: string;
  source: string;
  target: string;
  sourceHandle?: string;
  /** Into a loop from its body: `done`, the edge that closes the body on the drawing. */
  targetHandle?: string;
};

export type TestDiagram = {
  nodes: TestNode[];
  edges: TestEdge[];
  /**
   * Extensions: `onError: "rollback"` undoes a failed run's actions (docs/runs.md, "Run control");
   * `errorWorkflowId` starts that workflow when a run fails (docs/workflows.md, "Error workflows");
   * `notifications` tells endpoints when runs end (docs/notifications.md); `mcp` offers it as an
   * MCP tool (docs/mcp.md); `concurrency`,
   * `throttle`, `debounce` and `priority` hold runs back (docs/flow-control.md).
   */
  settings?: {
    onError?: 'stop' | 'rollback';
    errorWorkflowId?: string | null;
    notifications?: Array<{ endpointId: string; statuses: Array<'complete' | 'errored' | 'terminated'> }>;
    /** Offers the live version as a tool on `/mcp` (docs/mcp.md). */
    mcp?: { enabled: boolean };
  } & FlowControl;
};

/** A node of one of the node types, its properties checked against that type's. */
export function node<Type extends NodeType>(
  id: string,
  type: Type,
  properties: NodePropertiesByType[Type],
): TestNode {
  return { id, data: { type, properties: { ...properties } } };
}

/**
 * A node whose type or properties are deliberately not what the node types take (an unknown type,
 * a missing property), for the tests of diagram validation.
 */
export function invalidNode(id: string, type: string, properties: Record<string, unknown> = {}): TestNode {
  return { id, data: { type, properties } };
}

export const nodes = {
  trigger: (id: string, properties: TriggerNodeProperties = { kind: 'api' }) =>
    node(id, 'trigger', properties),
  schedule: (id: string, cron: string) => node(id, 'trigger', { kind: 'schedule', cron }),
  condition: (id: string, conditions: Condition[], extra: Omit<ConditionNodeProperties, 'conditions'> = {}) =>
    node(id, 'condition', { conditions, ...extra }),
  /** A condition that always holds. */
  alwaysTrue: (id: string) =>
    node(id, 'condition', { conditions: [{ left: '1', operator: 'equals', right: '1' }] }),
  /** A delay of `seconds`, or of the properties given (`until`, a retry). */
  delay: (id: string, wait: number | DelayNodeProperties) =>
    node(id, 'delay', typeof wait === 'number' ? { seconds: wait } : wait),
  /** One SQL statement on one of the organization's databases. */
  database: (
    id: string,
    databaseId: string,
    sql: string,
    params: NonNullable<DatabaseNodeProperties['params']> = [],
    extra: { retry?: RetryPolicy } = {},
  ) => node(id, 'database', { databaseId, sql, params, ...extra }),
  /** An App event trigger on a webhook connection. */
  webhook: (id: string, connectionId: string, filter?: Record<string, unknown>) =>
    node(id, 'trigger', {
      kind: 'event',
      connectionId,
      trigger: 'webhook/received',
      ...(filter === undefined ? {} : { filter }),
    }),
  action: (
    id: string,
    action: string,
    input: NonNullable<ActionNodeProperties['input']>,
    extra: Partial<Pick<ActionNodeProperties, 'connectionId' | 'retry' | 'compensate'>> = {},
  ) => node(id, 'action', { action, input, ...extra }),
  /**
   * An `http__request` POST to `url` naming the node; with `undoUrl`, its `compensate` POSTs the
   * node's result there when the run rolls back (one retry).
   */
  httpCall: (
    id: string,
    url: string,
    { connectionId, undoUrl }: { connectionId: string; undoUrl?: string },
  ) =>
    node(id, 'action', {
      action: 'http__request',
      input: { method: 'POST', url, body: `{"node":"${id}"}` },
      connectionId,
      ...(undoUrl === undefined
        ? {}
        : {
            compensate: {
              action: 'http__request',
              input: { method: 'POST', url: undoUrl, body: `{{nodes.${id}.result}}` },
              retry: { attempts: 1, backoffSeconds: 1 },
            },
          }),
    }),
  /** A loop over `items`; its body is what its edges with `sourceHandle: "body"` reach. */
  loop: (id: string, items: string, extra: Omit<LoopNodeProperties, 'items'> = {}) =>
    node(id, 'loop', { items, ...extra }),
  /** An Agent step running one of the organization's agents. */
  agent: (id: string, agentId: string, task?: string) =>
    node(id, 'agent', { agentId, ...(task === undefined ? {} : { task }) }),
  /** Runs another workflow of the organization as a child run (`input`, `wait` as given). */
  callWorkflow: (id: string, workflowId: string, extra: Omit<WorkflowNodeProperties, 'workflowId'> = {}) =>
    node(id, 'workflow', { workflowId, ...extra }),
  /** A code step: a function body run in the sandbox, with its language and caps when given. */
  code: (id: string, code: string, extra: Omit<CodeNodeProperties, 'code'> = {}) =>
    node(id, 'code', { code, ...extra }),
};

/**
 * An edge; out of a condition it leaves by `sourceHandle` `true` or `false`, out of a loop by `body`
 * or `done`.
 */
export function edge(
  id: string,
  source: string,
  target: string,
  sourceHandle?: string,
  targetHandle?: string,
): TestEdge {
  return {
    id,
    source,
    target,
    ...(sourceHandle === undefined ? {} : { sourceHandle }),
    ...(targetHandle === undefined ? {} : { targetHandle }),
  };
}

/** The nodes joined one after another; an edge out of a condition leaves by its `true` handle. */
export function chainOf(...chained: TestNode[]): TestDiagram {
  const edges = chained.slice(1).map((target, index) => {
    const source = chained[index]!;
    return edge(`e${index}`, source.id, target.id, source.data.type === 'condition' ? 'true' : undefined);
  });
  return { nodes: chained, edges };
}

/**
 * The template probe of issue 23: a 2.8 KB diagram whose condition repeats the whole input
 * (`{{trigger}}`) 200 times in one property. With a 100 KB input it once stored a 20 MB step input.
 */
export function templateProbe(copies = 200): TestDiagram {
  return chainOf(
    nodes.trigger('t'),
    nodes.condition('c', [{ left: '{{trigger}}'.repeat(copies), operator: 'is_not_empty' }]),
  );
}
