import type { Diagram, DiagramEdge, DiagramNode } from './diagram.js';

/** The `sourceHandle` of the edges out of a `loop` node that lead into its body. */
export const LOOP_BODY_HANDLE = 'body';

/**
 * The `sourceHandle` of the edges out of a `loop` node that go on after its last iteration (an edge
 * without a handle does the same), and the usual `targetHandle` of an edge from a body node back to
 * its loop, which only closes the body on the drawing.
 */
export const LOOP_DONE_HANDLE = 'done';

/** The most items one `loop` step iterates over: each iteration is a run of its own. */
export const LOOP_MAX_ITEMS = 10_000;

/** The most iterations of one `loop` step unfinished at once. */
export const LOOP_MAX_CONCURRENCY = 50;

/** The type of the node that runs its body once per item. */
export const LOOP_NODE_TYPE = 'loop';

/** One loop's body: the nodes its body edges reach, and for each the edge that first reached it. */
export interface LoopBody {
  loopId: string;
  nodes: Set<string>;
  /** For each body node, the edge through which the body's walk first reached it. */
  reachedBy: Map<string, DiagramEdge>;
}

export const isLoopNode = (node: DiagramNode | undefined): boolean => node?.data.type === LOOP_NODE_TYPE;

/**
 * The body of every `loop` node of the diagram, by loop id: what its `body` edges reach, following
 * every edge but those back into the loop itself. A nested loop, its body and what comes after it are
 * part of the outer body. On a valid diagram (see `validateDiagram`) no edge enters a body from outside
 * and no edge leaves one except back to its loop.
 */
export function loopBodies(diagram: Pick<Diagram, 'nodes' | 'edges'>): Map<string, LoopBody> {
  const bodies = new Map<string, LoopBody>();
  const loops = diagram.nodes.filter(isLoopNode);
  if (loops.length === 0) return bodies;
  const outgoing = new Map<string, DiagramEdge[]>();
  for (const edge of diagram.edges) {
    const list = outgoing.get(edge.source);
    if (list) list.push(edge);
    else outgoing.set(edge.source, [edge]);
  }
  for (const loop of loops) {
    if (bodies.has(loop.id)) continue;
    const body: LoopBody = { loopId: loop.id, nodes: new Set(), reachedBy: new Map() };
    const queue: string[] = [];
    const visit = (edge: DiagramEdge) => {
      if (edge.target === loop.id || body.nodes.has(edge.target)) return;
      body.nodes.add(edge.target);
      body.reachedBy.set(edge.target, edge);
      queue.push(edge.target);
    };
    for (const edge of outgoing.get(loop.id) ?? []) if (edge.sourceHandle === LOOP_BODY_HANDLE) visit(edge);
    for (const id of queue) for (const edge of outgoing.get(id) ?? []) visit(edge);
    bodies.set(loop.id, body);
  }
  return bodies;
}

/** An edge from a body node back into its loop: it only closes the body on the drawing. */
export function isLoopBackEdge(edge: DiagramEdge, bodies: ReadonlyMap<string, LoopBody>): boolean {
  return bodies.get(edge.target)?.nodes.has(edge.source) ?? false;
}

/**
 * What one iteration of `loopId` runs: the loop node, its body's nodes and the edges between them.
 * The iteration starts at the loop node, whose step gives the item, and only its `body` edges fire
 * (`RunGraph`). Its settings keep only `onError`: an iteration rolls back its own actions when the
 * workflow says so, but is not a run of the workflow to report (an error workflow is the parent's).
 */
export function iterationDiagram(diagram: Diagram, loopId: string, body: LoopBody): Diagram {
  const kept = (id: string) => id === loopId || body.nodes.has(id);
  const onError = (diagram.settings as { onError?: unknown } | undefined)?.onError;
  return {
    nodes: diagram.nodes.filter((node) => kept(node.id)),
    edges: diagram.edges.filter((edge) => kept(edge.source) && edge.target !== loopId && kept(edge.target)),
    ...(onError === undefined ? {} : { settings: { onError } }),
  };
}
