import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

import {
  DIAGRAM_ID_MAX_LENGTH,
  DIAGRAM_MAX_BYTES,
  DIAGRAM_MAX_NODES,
  type Diagram,
  type DiagramEdge,
  type DiagramNode,
} from './diagram.js';
import {
  isLoopBackEdge,
  LOOP_BODY_HANDLE,
  LOOP_DONE_HANDLE,
  LOOP_NODE_TYPE,
  type LoopBody,
  loopBodies,
} from './loop-body.js';
import { matchesPatternProblem } from './matches-pattern.js';
import { mcpIssues } from './mcp-tool.js';
import { DIAGRAM_SCHEMA, DIAGRAM_SETTINGS_SCHEMA, NODE_TYPE_SCHEMAS } from './node-type-schemas.js';
import { CONDITION_HANDLES, type Condition, isNodeType, NODE_TYPES, type NodeType } from './node-types.js';
import { cronProblem } from './schedule.js';

/** One reason a diagram cannot be published or run. `path` is relative to the diagram, e.g. `nodes.2.id`. */
export interface DiagramIssue {
  path: string;
  message: string;
  nodeId?: string;
  edgeId?: string;
}

interface Validators {
  diagram: ValidateFunction;
  settings: ValidateFunction;
  nodeTypes: Record<NodeType, ValidateFunction>;
}

let validators: Validators | undefined;

/** Compiled on first use, so importing the contracts costs nothing to processes that never validate. */
function compiled(): Validators {
  if (!validators) {
    const ajv = new Ajv({
      allErrors: true,
      verbose: true,
      strict: true,
      strictRequired: false,
      allowUnionTypes: true,
    });
    validators = {
      diagram: ajv.compile(DIAGRAM_SCHEMA),
      settings: ajv.compile(DIAGRAM_SETTINGS_SCHEMA),
      nodeTypes: Object.fromEntries(
        NODE_TYPES.map((type) => [type, ajv.compile(NODE_TYPE_SCHEMAS[type])]),
      ) as Record<NodeType, ValidateFunction>,
    };
  }
  return validators;
}

/**
 * The contract's shape alone (`nodes`, `edges`, node `id` and `data.type`/`data.properties`, edge
 * `id`/`source`/`target`/`sourceHandle`): what a draft must satisfy to be saved.
 */
export function diagramShapeIssues(value: unknown): DiagramIssue[] {
  const validate = compiled().diagram;
  if (validate(value)) return [];
  return toIssues(validate.errors ?? [], '', (path) => ({ path, ...idsAt(value, path) }));
}

/**
 * Everything that must hold before a diagram is published or run (DESIGN.md section 3), except what
 * needs the organization's data (agents, app connections): those checks belong to the services.
 * A pure function: the workflow service calls it on publish and the runner before a run.
 */
export function validateDiagram(diagram: Diagram): DiagramIssue[] {
  // First, and alone: a diagram past these would cost every later check, and answer as many issues.
  const size = sizeIssues(diagram);
  if (size.length > 0) return size;
  const shape = diagramShapeIssues(diagram);
  if (shape.length > 0) return shape;
  const nodesById = new Map<string, DiagramNode>();
  const issues: DiagramIssue[] = [];
  diagram.nodes.forEach((node, index) => {
    if (nodesById.has(node.id)) {
      issues.push({
        path: `nodes.${index}.id`,
        nodeId: node.id,
        message: `node id "${node.id}" is used by more than one node`,
      });
    } else {
      nodesById.set(node.id, node);
    }
    issues.push(...nodeIssues(node, index));
  });
  if (!diagram.nodes.some((node) => node.data.type === 'trigger')) {
    issues.push({ path: 'nodes', message: 'the diagram has no trigger node; add one to start runs from' });
  }
  issues.push(...settingsIssues(diagram));
  issues.push(...mcpIssues(diagram));
  issues.push(...edgeIssues(diagram.edges, nodesById));
  const bodies = loopBodies(diagram);
  issues.push(...loopIssues(diagram, bodies));
  issues.push(
    ...cycleIssues(
      diagram.edges.filter((edge) => !isLoopBackEdge(edge, bodies)),
      nodesById,
    ),
  );
  return issues;
}

/** The diagram's `settings` (an extension), when it has them. */
function settingsIssues(diagram: Diagram): DiagramIssue[] {
  if (diagram.settings === undefined) return [];
  const validate = compiled().settings;
  if (validate(diagram.settings)) return [];
  return toIssues(validate.errors ?? [], 'settings', (path) => ({ path }));
}

/** The node count and the JSON size of what a run stores and answers (DIAGRAM_MAX_NODES, DIAGRAM_MAX_BYTES). */
function sizeIssues(diagram: Diagram): DiagramIssue[] {
  const nodes: unknown = (diagram as Partial<Diagram> | null)?.nodes;
  if (Array.isArray(nodes) && nodes.length > DIAGRAM_MAX_NODES) {
    return [
      {
        path: 'nodes',
        message: `the diagram has ${nodes.length} nodes; one that is published or run may have at most ${DIAGRAM_MAX_NODES}`,
      },
    ];
  }
  const bytes = new TextEncoder().encode(JSON.stringify(diagram) ?? '').length;
  if (bytes > DIAGRAM_MAX_BYTES) {
    return [
      {
        path: '',
        message: `the diagram is ${bytes} bytes as JSON; one that is published or run may be at most ${DIAGRAM_MAX_BYTES} bytes (1 MiB)`,
      },
    ];
  }
  return [];
}

function nodeIssues(node: DiagramNode, index: number): DiagramIssue[] {
  const base = `nodes.${index}.data`;
  const type = node.data.type;
  if (!isNodeType(type)) {
    return [
      {
        path: `${base}.type`,
        nodeId: node.id,
        message: `node "${node.id}" has an unknown type "${type}"; the types are ${NODE_TYPES.join(', ')}`,
      },
    ];
  }
  const validate = compiled().nodeTypes[type];
  const properties = node.data.properties;
  if (!validate(properties)) {
    return toIssues(validate.errors ?? [], `${base}.properties`, (path) => ({ path, nodeId: node.id }), {
      node,
    });
  }
  return semanticIssues(node, type, `${base}.properties`);
}

/** Rules a JSON schema cannot say: the cron grammar, regular expressions, literal times. */
function semanticIssues(node: DiagramNode, type: NodeType, path: string): DiagramIssue[] {
  const properties = node.data.properties;
  const issue = (field: string, message: string): DiagramIssue => ({
    path: `${path}.${field}`,
    nodeId: node.id,
    message: `node "${node.id}": ${message}`,
  });
  switch (type) {
    case 'trigger': {
      if (properties.kind !== 'schedule') return [];
      const problem = cronProblem(properties.cron as string);
      return problem ? [issue('cron', problem)] : [];
    }
    case 'condition':
      return (properties.conditions as Condition[]).flatMap((condition, index) => {
        if (condition.operator !== 'matches' || condition.right === undefined) return [];
        if (condition.right.includes('{{')) return [];
        const problem = matchesPatternProblem(condition.right);
        return problem
          ? [issue(`conditions.${index}.right`, `condition ${index + 1} (matches): ${problem}`)]
          : [];
      });
    case 'delay': {
      const until = properties.until;
      if (typeof until !== 'string' || until.includes('{{') || !Number.isNaN(Date.parse(until))) return [];
      return [issue('until', 'until must be an ISO 8601 time or a template that gives one')];
    }
    case 'loop':
      // Its iterations are runs claimed by index: a second attempt would find the first's. A step of
      // the body is retried instead, within its iteration.
      return properties.retry === undefined
        ? []
        : [issue('retry', 'a loop is not retried; give retry to the steps of its body instead')];
    case 'agent':
    case 'action':
    case 'database':
    case 'workflow':
    case 'code':
      // A code node's syntax is checked at publish by the workflow service (CodeNodesCheck), with the
      // sandbox's own compiler.
      return [];
  }
}

function edgeIssues(edges: DiagramEdge[], nodesById: Map<string, DiagramNode>): DiagramIssue[] {
  const issues: DiagramIssue[] = [];
  const seen = new Set<string>();
  edges.forEach((edge, index) => {
    const at = (field: string, message: string, nodeId?: string): DiagramIssue => ({
      path: `edges.${index}${field ? `.${field}` : ''}`,
      edgeId: edge.id,
      ...(nodeId === undefined ? {} : { nodeId }),
      message: `edge "${edge.id}": ${message}`,
    });
    if (seen.has(edge.id)) issues.push(at('id', `edge id "${edge.id}" is used by more than one edge`));
    seen.add(edge.id);
    const source = nodesById.get(edge.source);
    const target = nodesById.get(edge.target);
    if (!source) issues.push(at('source', `source "${edge.source}" is not a node of the diagram`));
    if (!target) issues.push(at('target', `target "${edge.target}" is not a node of the diagram`));
    if (target?.data.type === 'trigger') {
      issues.push(at('target', `trigger "${target.id}" cannot have incoming edges`, target.id));
    }
    if (
      source?.data.type === 'condition' &&
      !(CONDITION_HANDLES as readonly unknown[]).includes(edge.sourceHandle)
    ) {
      issues.push(
        at(
          'sourceHandle',
          `an edge out of condition "${source.id}" needs sourceHandle "true" or "false"`,
          source.id,
        ),
      );
    }
  });
  return issues;
}

/**
 * The shape of loops (`loopBodies`): a loop has a body; its edges leave by `body`, `done` or no
 * handle; a body is entered only through its loop's `body` edges and left only back to its loop
 * (so every edge into a body node from a node outside the body is refused, naming the edge that
 * made the node part of the body); no trigger is inside one. Nested loops are bodies within bodies.
 */
function loopIssues(diagram: Diagram, bodies: Map<string, LoopBody>): DiagramIssue[] {
  const issues: DiagramIssue[] = [];
  const nodeIndex = new Map<string, number>();
  diagram.nodes.forEach((node, index) => {
    if (!nodeIndex.has(node.id)) nodeIndex.set(node.id, index);
  });
  const typeOf = (id: string) => diagram.nodes[nodeIndex.get(id) ?? -1]?.data.type;
  for (const body of bodies.values()) {
    const hasBody = diagram.edges.some(
      (edge) => edge.source === body.loopId && edge.sourceHandle === LOOP_BODY_HANDLE,
    );
    if (!hasBody) {
      issues.push({
        path: `nodes.${nodeIndex.get(body.loopId)}`,
        nodeId: body.loopId,
        message: `loop "${body.loopId}" has no body: connect its "${LOOP_BODY_HANDLE}" handle to the first node to run for each item`,
      });
    }
    for (const id of body.nodes) {
      if (typeOf(id) !== 'trigger') continue;
      issues.push({
        path: `nodes.${nodeIndex.get(id)}`,
        nodeId: id,
        message: `trigger "${id}" cannot be in the body of loop "${body.loopId}"`,
      });
    }
  }
  diagram.edges.forEach((edge, index) => {
    const at = (field: string, nodeId: string, message: string): DiagramIssue => ({
      path: `edges.${index}.${field}`,
      edgeId: edge.id,
      nodeId,
      message: `edge "${edge.id}": ${message}`,
    });
    if (typeOf(edge.source) === LOOP_NODE_TYPE) {
      const handle = edge.sourceHandle ?? null;
      if (handle !== null && handle !== LOOP_BODY_HANDLE && handle !== LOOP_DONE_HANDLE) {
        issues.push(
          at(
            'sourceHandle',
            edge.source,
            `an edge out of loop "${edge.source}" needs sourceHandle "${LOOP_BODY_HANDLE}" (into its body), "${LOOP_DONE_HANDLE}" or none (after its last iteration)`,
          ),
        );
      } else if (handle === LOOP_BODY_HANDLE && edge.target === edge.source) {
        issues.push(at('target', edge.source, `the body of loop "${edge.source}" cannot be the loop itself`));
      }
    }
    for (const body of bodies.values()) {
      if (!body.nodes.has(edge.target) || body.nodes.has(edge.source)) continue;
      if (edge.source === body.loopId && edge.sourceHandle === LOOP_BODY_HANDLE) continue;
      const reached = body.reachedBy.get(edge.target);
      // Named when a body edge did not lead there directly: that edge is usually the mistake.
      const via =
        reached && reached.source !== body.loopId
          ? ` (it is in the body through edge "${reached.id}" from "${reached.source}")`
          : '';
      issues.push(
        at(
          'target',
          body.loopId,
          `"${edge.target}" is in the body of loop "${body.loopId}"${via}, but this edge comes from "${edge.source}", outside it; a body is entered only through its loop's "${LOOP_BODY_HANDLE}" edges and left only back to its loop`,
        ),
      );
    }
  });
  return issues;
}

/**
 * One issue per edge that closes a cycle (a back edge of a depth-first search), naming the loop.
 * The search is iterative so a long chain of nodes cannot overflow the stack.
 */
function cycleIssues(edges: DiagramEdge[], nodesById: Map<string, DiagramNode>): DiagramIssue[] {
  const outgoing = new Map<string, Array<{ edge: DiagramEdge; index: number }>>();
  edges.forEach((edge, index) => {
    if (!nodesById.has(edge.source) || !nodesById.has(edge.target)) return;
    const list = outgoing.get(edge.source) ?? [];
    list.push({ edge, index });
    outgoing.set(edge.source, list);
  });
  const state = new Map<string, 'open' | 'done'>();
  const issues: DiagramIssue[] = [];
  for (const start of nodesById.keys()) {
    if (state.has(start)) continue;
    const stack: Array<{ node: string; next: number }> = [{ node: start, next: 0 }];
    state.set(start, 'open');
    for (let frame = stack.at(-1); frame; frame = stack.at(-1)) {
      const next = outgoing.get(frame.node)?.[frame.next];
      if (!next) {
        state.set(frame.node, 'done');
        stack.pop();
        continue;
      }
      frame.next += 1;
      const { edge, index } = next;
      const seen = state.get(edge.target);
      if (seen === undefined) {
        state.set(edge.target, 'open');
        stack.push({ node: edge.target, next: 0 });
      } else if (seen === 'open') {
        const loop = stack.slice(stack.findIndex((entry) => entry.node === edge.target)).map((e) => e.node);
        issues.push({
          path: `edges.${index}`,
          edgeId: edge.id,
          nodeId: edge.target,
          message: `edge "${edge.id}" closes a cycle: ${[...loop, edge.target].join(' → ')}; diagrams must be acyclic`,
        });
      }
    }
  }
  return issues;
}

/** Turns Ajv's errors into issues with readable messages; `at` adds the ids for a path. */
function toIssues(
  errors: ErrorObject[],
  basePath: string,
  at: (path: string) => Pick<DiagramIssue, 'path' | 'nodeId' | 'edgeId'>,
  context: { node?: DiagramNode } = {},
): DiagramIssue[] {
  const issues: DiagramIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    // `if` repeats what its `then` already said; the branches of a oneOf or anyOf are summed up by it.
    if (error.keyword === 'if' || /\/(oneOf|anyOf)\/\d+\//.test(error.schemaPath)) continue;
    const segments = error.instancePath.split('/').slice(1);
    let field = segments;
    let message: string;
    switch (error.keyword) {
      case 'required':
        field = [...segments, String(error.params.missingProperty)];
        message = 'is required';
        break;
      case 'additionalProperties':
        field = [...segments, String(error.params.additionalProperty)];
        message = context.node
          ? `is not a property of a ${context.node.data.type} node`
          : 'is not an allowed property';
        break;
      case 'type':
        message = `must be ${([] as unknown[]).concat(error.params.type).join(' or ')}`;
        break;
      case 'maxLength':
        message = `must be at most ${String(error.params.limit)} characters`;
        break;
      case 'enum':
        message = `must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}`;
        break;
      case 'oneOf': {
        const branches = (error.schema as Array<{ required?: string[] }>).flatMap((b) => b.required ?? []);
        message = `must set exactly one of: ${branches.join(', ')}`;
        break;
      }
      default:
        message = error.message ?? 'is not valid';
    }
    const path = [basePath, ...field].filter(Boolean).join('.');
    const name = [context.node ? 'properties' : 'diagram', ...field].join('.');
    const text = `${name} ${message}`;
    const key = `${path}\u0000${text}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({
      ...at(path),
      message: context.node ? `node "${context.node.id}": ${text}` : text,
    });
  }
  return issues;
}

/** The node or edge id at a shape path such as `nodes.3.data.type`, when it has a readable one. */
function idsAt(value: unknown, path: string): Pick<DiagramIssue, 'nodeId' | 'edgeId'> {
  const [list, index] = path.split('.');
  if ((list !== 'nodes' && list !== 'edges') || index === undefined) return {};
  const items = (value as Record<string, unknown> | null)?.[list];
  const id = Array.isArray(items) ? (items[Number(index)] as { id?: unknown } | undefined)?.id : undefined;
  if (typeof id !== 'string' || id === '' || id.length > DIAGRAM_ID_MAX_LENGTH) return {};
  return list === 'nodes' ? { nodeId: id } : { edgeId: id };
}
