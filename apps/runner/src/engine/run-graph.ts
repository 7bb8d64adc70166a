import {
  type Diagram,
  type DiagramEdge,
  type DiagramNode,
  isLoopBackEdge,
  isLoopNode,
  LOOP_BODY_HANDLE,
  loopBodies,
} from '#contracts';

/**
 * The part of a diagram one run can reach: the nodes downstream of the trigger it started from,
 * and their edges. Other triggers and what only they reach are not part of the run.
 *
 * Loops: a run never walks into a loop's body (the loop's step runs each iteration as a run of its
 * own), so a loop's `body` edges are not part of it, nor are the edges from a body back to its loop.
 * A loop iteration starts at its loop node, and of that node's edges only the `body` ones are.
 */
export class RunGraph {
  /** Reachable nodes, breadth first from the trigger: the order ready nodes are started in. */
  readonly order: string[];
  private readonly reachable: Set<string>;
  private readonly nodes = new Map<string, DiagramNode>();
  private readonly incomingEdges = new Map<string, DiagramEdge[]>();
  private readonly outgoingEdges = new Map<string, DiagramEdge[]>();

  private constructor(diagram: Diagram, start: string) {
    for (const node of diagram.nodes) if (!this.nodes.has(node.id)) this.nodes.set(node.id, node);
    const outgoing = new Map<string, DiagramEdge[]>();
    const bodies = loopBodies(diagram);
    const walked = (edge: DiagramEdge) => {
      if (bodies.size === 0) return true;
      if (isLoopBackEdge(edge, bodies)) return false;
      if (!isLoopNode(this.nodes.get(edge.source))) return true;
      return (edge.sourceHandle === LOOP_BODY_HANDLE) === (edge.source === start);
    };
    for (const edge of diagram.edges) {
      if (!this.nodes.has(edge.source) || !this.nodes.has(edge.target) || !walked(edge)) continue;
      // Appended in place: copying the list per edge was quadratic in a node's edges.
      const list = outgoing.get(edge.source);
      if (list) list.push(edge);
      else outgoing.set(edge.source, [edge]);
    }
    const reachable = new Set<string>([start]);
    const queue = [start];
    for (const id of queue) {
      for (const edge of outgoing.get(id) ?? []) {
        if (!reachable.has(edge.target)) {
          reachable.add(edge.target);
          queue.push(edge.target);
        }
      }
    }
    this.order = queue;
    this.reachable = reachable;
    for (const id of reachable) {
      const out = outgoing.get(id) ?? [];
      this.outgoingEdges.set(id, out);
      for (const edge of out) {
        const list = this.incomingEdges.get(edge.target);
        if (list) list.push(edge);
        else this.incomingEdges.set(edge.target, [edge]);
      }
    }
  }

  static of(diagram: Diagram, startNodeId: string): RunGraph {
    return new RunGraph(diagram, startNodeId);
  }

  node(id: string): DiagramNode {
    const node = this.nodes.get(id);
    if (!node) throw new Error(`node ${id} is not in the diagram`);
    return node;
  }

  /** Whether the run can reach `id`. */
  has(id: string): boolean {
    return this.reachable.has(id);
  }

  /** Edges into `id` from nodes the run can reach. */
  incoming(id: string): readonly DiagramEdge[] {
    return this.incomingEdges.get(id) ?? [];
  }

  outgoing(id: string): readonly DiagramEdge[] {
    return this.outgoingEdges.get(id) ?? [];
  }
}
