/**
 * The longest node id, edge id and edge `source`/`target` (which name node ids), in characters, and
 * so of a run start's `triggerNodeId`. Ids are repeated in every step row, template
 * (`{{nodes.<id>.<field>}}`), issue and error message; 200 is what `triggerNodeId` always allowed.
 */
export const DIAGRAM_ID_MAX_LENGTH = 200;

/**
 * The contract's Diagram. Extra layout properties are allowed at every level and must round-trip
 * unchanged, so these types describe only what the service reads.
 */
export interface DiagramNode {
  id: string;
  data: { type: string; properties: Record<string, unknown>; [extra: string]: unknown };
  [extra: string]: unknown;
}

export interface DiagramEdge {
  id: string;
  source: string;
  target: string;
  sourceHandle?: string | null;
  [extra: string]: unknown;
}

export interface Diagram {
  nodes: DiagramNode[];
  edges: DiagramEdge[];
  [extra: string]: unknown;
}
