/**
 * The longest node id, edge id and edge `source`/`target` (which name node ids), in characters, and
 * so of a run start's `triggerNodeId`. Ids are repeated in every step row, template
 * (`{{nodes.<id>.<field>}}`), issue and error message; 200 is what `triggerNodeId` always allowed.
 */
export const DIAGRAM_ID_MAX_LENGTH = 200;

/**
 * The most nodes a diagram may have to be published or run. Every run stores its diagram and answers
 * it with its steps (one per node it reaches) in one NATS message, and the engine looks over every
 * node each time a step ends; a thousand is far beyond any workflow drawn by hand.
 */
export const DIAGRAM_MAX_NODES = 1_000;

/**
 * The most a diagram may be to be published or run, in UTF-8 bytes of its JSON: with a run's steps
 * and input it must fit one 8 MiB NATS message (docs/runs.md, "Limits"). Drafts may be larger.
 */
export const DIAGRAM_MAX_BYTES = 1024 * 1024;

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
