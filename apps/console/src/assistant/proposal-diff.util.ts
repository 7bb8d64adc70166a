import type { Edge } from '@xyflow/react';

import { type Diagram, type FlowNode, restOf, toFlow } from '../editor/diagram';

export type NodeChange = 'added' | 'changed' | 'removed';

/** A node of the proposal or of the current draft, and what the proposal does to it. */
export interface NodeDiff {
  id: string;
  type: string;
  change: NodeChange | 'same';
}

export interface DiagramDiff {
  /** The proposal's nodes in its order, then the current draft's nodes it removes. */
  nodes: NodeDiff[];
  /** Edges by what they join (their ids are the model's to choose): keys of `edgeKey`. */
  addedEdges: Set<string>;
  removedEdges: Set<string>;
  /** The diagram's own properties (`settings`: error workflow, flow control) differ. */
  settingsChanged: boolean;
}

type DiagramNode = Diagram['nodes'][number];

/** JSON with object keys sorted, so that two values compare equal whatever order the model wrote. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What an edge joins: its ends and handles. */
export const edgeKey = (edge: {
  source: string;
  target: string;
  sourceHandle?: string | null;
  targetHandle?: unknown;
}): string =>
  [
    edge.source,
    edge.sourceHandle ?? '',
    edge.target,
    typeof edge.targetHandle === 'string' ? edge.targetHandle : '',
  ].join('\u0000');

/**
 * What a proposal changes in the current draft, node by node id: a node is changed when its `data`
 * (type, properties, anything else the API keeps on it) differs; where it sits is layout, not a change.
 */
export function diffDiagrams(current: Diagram, proposed: Diagram): DiagramDiff {
  const before = new Map(current.nodes.map((node) => [node.id, node]));
  const kept = new Set(proposed.nodes.map((node) => node.id));
  const nodes: NodeDiff[] = proposed.nodes.map((node) => {
    const old = before.get(node.id);
    const change = !old ? 'added' : canonical(old.data) === canonical(node.data) ? 'same' : 'changed';
    return { id: node.id, type: node.data.type, change };
  });
  for (const node of current.nodes) {
    if (!kept.has(node.id)) nodes.push({ id: node.id, type: node.data.type, change: 'removed' });
  }
  const currentEdges = new Set(current.edges.map(edgeKey));
  const proposedEdges = new Set(proposed.edges.map(edgeKey));
  return {
    nodes,
    addedEdges: new Set([...proposedEdges].filter((key) => !currentEdges.has(key))),
    removedEdges: new Set([...currentEdges].filter((key) => !proposedEdges.has(key))),
    settingsChanged: canonical(restOf(current)) !== canonical(restOf(proposed)),
  };
}

const plural = (count: number, one: string) => `${count} ${one}${count === 1 ? '' : 's'}`;

/** The comparison in one sentence, above the diagrams; a new workflow is only counted. */
export function diffSummary(diff: DiagramDiff, proposed: Diagram, isNew: boolean): string {
  if (isNew) {
    return `A new workflow of ${plural(proposed.nodes.length, 'node')} and ${plural(proposed.edges.length, 'edge')}.`;
  }
  const count = (change: NodeChange) => diff.nodes.filter((node) => node.change === change).length;
  const nodes = diff.nodes.some((node) => node.change !== 'same')
    ? `${count('added')} added, ${count('changed')} changed, ${count('removed')} removed`
    : 'no node changes';
  const edges = `${plural(diff.addedEdges.size, 'edge')} added, ${diff.removedEdges.size} removed`;
  return `Compared with the current draft: ${nodes}; ${edges}${diff.settingsChanged ? '; its settings change' : ''}.`;
}

const positionOf = (node: DiagramNode): { x: number; y: number } | null => {
  const position = node.position as { x?: unknown; y?: unknown } | undefined;
  return position && typeof position.x === 'number' && typeof position.y === 'number'
    ? { x: position.x, y: position.y }
    : null;
};

/**
 * The proposal with a place for every node: a node the model left unplaced keeps its place in the
 * current draft, and a new one goes below the others. Applied as it is drawn, so the editor opens it
 * laid out; positions are layout the publish rules do not read.
 */
export function laidOut(proposed: Diagram, current: Diagram): Diagram {
  const places = new Map<string, { x: number; y: number }>();
  for (const node of current.nodes) {
    const position = positionOf(node);
    if (position) places.set(node.id, position);
  }
  const ys = [...current.nodes, ...proposed.nodes].flatMap((node) => {
    const position = positionOf(node);
    return position ? [position.y] : [];
  });
  // The first node placed here lands at the editor's first row (y 40) on an empty canvas.
  let lowest = Math.max(-90, ...ys);
  return {
    ...proposed,
    nodes: proposed.nodes.map((node) => {
      if (positionOf(node)) return node;
      const kept = places.get(node.id);
      if (kept) return { ...node, position: kept };
      lowest += 130;
      return { ...node, position: { x: 80, y: lowest } };
    }),
  };
}

export interface DiffFlow {
  nodes: FlowNode[];
  edges: Edge[];
}

const labelled = (node: FlowNode, change: NodeChange | 'same', problems?: string[]): FlowNode => ({
  ...node,
  ariaLabel: `${node.id} (${node.data.type})${change === 'same' ? '' : `: ${change}`}`,
  data: {
    ...node.data,
    ...(change === 'same' ? {} : { diff: change }),
    ...(problems?.length ? { problems } : {}),
  },
});

const withClass = (edge: Edge, className: string): Edge => ({
  ...edge,
  className: [edge.className, className].filter(Boolean).join(' '),
});

/**
 * The proposal as drawn beside the current draft: its nodes marked added or changed, the nodes it
 * removes ghosted where they were (with the edges that joined them), its new edges marked, and the
 * problems the service found shown on the nodes they name.
 */
export function proposalFlow(
  current: Diagram,
  proposed: Diagram,
  diff: DiagramDiff,
  problems: ReadonlyMap<string, string[]> = new Map(),
): DiffFlow {
  const changes = new Map(diff.nodes.map((node) => [node.id, node.change]));
  const drawn = toFlow(proposed);
  const removedIds = new Set(diff.nodes.filter((node) => node.change === 'removed').map((node) => node.id));
  const ghosts = toFlow(current).nodes.filter((node) => removedIds.has(node.id));
  const shown = new Set([...drawn.nodes, ...ghosts].map((node) => node.id));
  const ghostEdges = toFlow(current)
    .edges.filter(
      (edge) => diff.removedEdges.has(edgeKey(edge)) && shown.has(edge.source) && shown.has(edge.target),
    )
    .map((edge) => ({
      ...withClass(edge, 'diff-removed'),
      id: `removed:${edge.id}`,
      ariaLabel: `Edge from ${edge.source} to ${edge.target}: removed`,
    }));
  return {
    nodes: [
      ...drawn.nodes.map((node) => labelled(node, changes.get(node.id) ?? 'same', problems.get(node.id))),
      ...ghosts.map((node) => labelled(node, 'removed')),
    ],
    edges: [
      ...drawn.edges.map((edge) =>
        diff.addedEdges.has(edgeKey(edge))
          ? {
              ...withClass(edge, 'diff-added'),
              ariaLabel: `Edge from ${edge.source} to ${edge.target}: added`,
            }
          : edge,
      ),
      ...ghostEdges,
    ],
  };
}

/** The current draft as drawn beside the proposal: the nodes it changes or removes marked. */
export function currentFlow(current: Diagram, diff: DiagramDiff): DiffFlow {
  const changes = new Map(diff.nodes.map((node) => [node.id, node.change]));
  const drawn = toFlow(current);
  return {
    nodes: drawn.nodes.map((node) => labelled(node, changes.get(node.id) ?? 'same')),
    edges: drawn.edges.map((edge) =>
      diff.removedEdges.has(edgeKey(edge))
        ? {
            ...withClass(edge, 'diff-removed'),
            ariaLabel: `Edge from ${edge.source} to ${edge.target}: removed`,
          }
        : edge,
    ),
  };
}
