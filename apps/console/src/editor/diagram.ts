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
] as const;
export type NodeType = (typeof NODE_TYPES)[number];

/** What the editor keeps on a React Flow node: the diagram node's `data`, and its problems. */
export type FlowData = {
  type: string;
  properties: Record<string, unknown>;
  problems?: string[];
  status?: string;
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
    default:
      return {};
  }
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
  const edges = diagram.edges.map((edge): Edge => ({
    id: edge.id,
    source: edge.source,
    target: edge.target,
    sourceHandle: edge.sourceHandle ?? null,
    ...(edge.sourceHandle ? { label: edge.sourceHandle } : {}),
  }));
  return { nodes, edges };
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
          ([key]) => !['problems', 'status', 'type', 'properties'].includes(key),
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
    default:
      return '';
  }
}
