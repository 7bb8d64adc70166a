import type { Edge, Node } from '@xyflow/react';

import type { Schemas } from '../api/client';

export type Diagram = Schemas['Diagram'];
export type DiagramNode = Diagram['nodes'][number];

export const NODE_TYPES = [
  'trigger',
  'condition',
  'action',
  'database',
  'agent',
  'delay',
  'workflow',
  'code',
  'loop',
] as const;
export type NodeType = (typeof NODE_TYPES)[number];

/** What the editor keeps on a React Flow node: the diagram node's `data`, and its problems. */
export type FlowData = {
  type: string;
  properties: Record<string, unknown>;
  problems?: string[];
  status?: string;
  /** The loops whose body the node is in, outermost first (shown, never saved). */
  loops?: string[];
  /** What an assistant's proposal does to the node, on the canvases that compare it (never saved). */
  diff?: 'added' | 'changed' | 'removed';
  [key: string]: unknown;
};
export type FlowNode = Node<FlowData, 'step'>;

/** Properties a new node starts with: enough to be recognizable, not enough to be valid. */
export function defaultProperties(type: string): Record<string, unknown> {
  switch (type) {
    case 'trigger':
      return { kind: 'manual', label: 'Manual' };
    case 'condition':
      return {
        conditions: [{ left: '{{trigger.amount}}', operator: 'greater_than', right: '100' }],
        match: 'all',
      };
    case 'action':
      return { action: 'http__request', input: {} };
    case 'database':
      return { databaseId: '', sql: '', params: [] };
    case 'agent':
      return { agentId: '', task: '' };
    case 'delay':
      return { seconds: 60 };
    case 'workflow':
      return { workflowId: '', input: '{{trigger}}', wait: true };
    case 'code':
      return { language: 'javascript', code: 'return trigger;' };
    case 'loop':
      return { items: '{{nodes.query.rows}}', concurrency: 1 };
    default:
      return {};
  }
}

/**
 * The loops each node is in the body of, outermost first: a loop's body is what its `body` edges
 * reach, following every edge but those back into the loop (the API's rule, `loopBodies`).
 */
export function loopsOf(
  nodes: ReadonlyArray<{ id: string; data: { type: string } }>,
  edges: ReadonlyArray<{ source: string; target: string; sourceHandle?: string | null }>,
): Map<string, string[]> {
  const outgoing = new Map<string, Array<(typeof edges)[number]>>();
  for (const edge of edges) outgoing.set(edge.source, [...(outgoing.get(edge.source) ?? []), edge]);
  const bodies = new Map<string, Set<string>>();
  for (const loop of nodes.filter((node) => node.data.type === 'loop')) {
    const body = new Set<string>();
    const queue = (outgoing.get(loop.id) ?? []).filter((edge) => edge.sourceHandle === 'body');
    for (let edge = queue.shift(); edge; edge = queue.shift()) {
      if (edge.target === loop.id || body.has(edge.target)) continue;
      body.add(edge.target);
      queue.push(...(outgoing.get(edge.target) ?? []));
    }
    bodies.set(loop.id, body);
  }
  const loops = new Map<string, string[]>();
  for (const [loopId, body] of bodies) {
    for (const id of body) loops.set(id, [...(loops.get(id) ?? []), loopId]);
  }
  // Outermost first: an outer loop's body holds the inner loop and all of its body.
  for (const list of loops.values())
    list.sort((a, b) => (bodies.get(b)?.size ?? 0) - (bodies.get(a)?.size ?? 0));
  return loops;
}

/** Shows each node's loops on it (`FlowData.loops`), leaving nodes whose loops did not change as they are. */
export function withLoops<N extends { id: string; data: FlowData }>(
  nodes: N[],
  edges: ReadonlyArray<{ source: string; target: string; sourceHandle?: string | null }>,
): N[] {
  const loops = loopsOf(nodes, edges);
  return nodes.map((node) => {
    const list = loops.get(node.id);
    if ((list ?? []).join('\u0000') === (node.data.loops ?? []).join('\u0000')) return node;
    return { ...node, data: { ...node.data, loops: list } };
  });
}

/** How an edge reads on the canvas: a loop's body edges and the edges back to it stand out. */
export function edgeLook(edge: {
  sourceHandle?: string | null;
  targetHandle?: string | null;
}): Partial<Edge> {
  if (edge.sourceHandle === 'body') return { label: 'body', className: 'loop-body-edge' };
  if (edge.targetHandle === 'done') return { className: 'loop-back-edge' };
  return edge.sourceHandle ? { label: edge.sourceHandle } : {};
}

export function starterDiagram(): Diagram {
  return {
    nodes: [
      {
        id: 'trigger',
        data: { type: 'trigger', properties: defaultProperties('trigger') },
        position: { x: 80, y: 40 },
      },
    ],
    edges: [],
  };
}

/**
 * The diagram as React Flow nodes and edges. `position` is the editor's layout property: extra
 * properties round-trip through the API, so a saved layout comes back as it was; nodes without one
 * (made through the API) are laid out in a column.
 */
export function toFlow(diagram: Diagram): { nodes: FlowNode[]; edges: Edge[] } {
  const nodes = diagram.nodes.map((node, index): FlowNode => {
    const position = node.position as { x?: unknown; y?: unknown } | undefined;
    const { type, properties, ...rest } = node.data;
    return {
      id: node.id,
      type: 'step',
      position:
        position && typeof position.x === 'number' && typeof position.y === 'number'
          ? { x: position.x, y: position.y }
          : { x: 80 + (index % 2) * 40, y: 40 + index * 130 },
      data: { ...rest, type, properties },
    };
  });
  const edges = diagram.edges.map((edge): Edge => {
    const targetHandle = typeof edge.targetHandle === 'string' ? edge.targetHandle : null;
    return {
      id: edge.id,
      source: edge.source,
      target: edge.target,
      sourceHandle: edge.sourceHandle ?? null,
      targetHandle,
      ...edgeLook({ sourceHandle: edge.sourceHandle, targetHandle }),
    };
  });
  return { nodes: withLoops(nodes, edges), edges };
}

/** A diagram's own properties besides its nodes and edges: its `settings`, a builder's state. */
export type DiagramRest = Omit<Diagram, 'nodes' | 'edges'>;

/** What `diagram` has besides its nodes and edges, to be saved again with them. */
export function restOf(diagram: Diagram): DiagramRest {
  return Object.fromEntries(Object.entries(diagram).filter(([key]) => key !== 'nodes' && key !== 'edges'));
}

/**
 * Back to the API's diagram, with each node's position kept as a layout property, and the diagram's
 * own properties (`rest`: its settings) as they were.
 */
export function fromFlow(nodes: FlowNode[], edges: Edge[], rest: DiagramRest = {}): Diagram {
  return {
    ...rest,
    nodes: nodes.map((node) => {
      // What the editor shows on a node (its problems, a run's status) is not saved with it.
      const rest = Object.fromEntries(
        Object.entries(node.data).filter(
          ([key]) => !['problems', 'status', 'loops', 'diff', 'type', 'properties'].includes(key),
        ),
      );
      const { type, properties } = node.data;
      return {
        id: node.id,
        data: { ...rest, type, properties },
        position: { x: Math.round(node.position.x), y: Math.round(node.position.y) },
      };
    }),
    edges: edges.map((edge) => ({
      id: edge.id,
      source: edge.source,
      target: edge.target,
      ...(edge.sourceHandle ? { sourceHandle: edge.sourceHandle } : {}),
      ...(edge.targetHandle ? { targetHandle: edge.targetHandle } : {}),
    })),
  };
}

/** A node id not yet used: `<type>`, `<type>_2`, … (templates read steps as `{{nodes.<id>.…}}`). */
export function nextNodeId(type: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(type)) return type;
  let n = 2;
  while (used.has(`${type}_${n}`)) n += 1;
  return `${type}_${n}`;
}

/** A one-line summary of a node's properties for its box on the diagram. */
export function summary(data: FlowData): string {
  const p = data.properties;
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  switch (data.type) {
    case 'trigger':
      return [text(p.kind), text(p.label), text(p.cron), text(p.trigger)].filter(Boolean).join(' · ');
    case 'condition': {
      const conditions = Array.isArray(p.conditions) ? (p.conditions as Array<Record<string, unknown>>) : [];
      return conditions
        .map((c) => `${text(c.left)} ${text(c.operator)} ${text(c.right)}`)
        .join(` ${text(p.match) || 'all'} `);
    }
    case 'action':
      return text(p.action);
    case 'database':
      return text(p.sql).slice(0, 60);
    case 'agent':
      return text(p.task).slice(0, 60) || 'agent';
    case 'delay':
      return p.seconds !== undefined ? `${String(p.seconds)} s` : text(p.until);
    case 'code':
      return (
        text(p.code)
          .split('\n')
          .find((line) => line.trim() !== '') ?? ''
      )
        .trim()
        .slice(0, 60);
    case 'loop':
      return `each of ${text(p.items)} · ${typeof p.concurrency === 'number' ? p.concurrency : 1} at a time`;
    default:
      return '';
  }
}
