import type { Diagram } from './diagram.js';

/** Asks workflow for what a run executes: the live version, or the draft when `draft` is true. */
export interface RunTargetRequest {
  workflowId: string;
  draft: boolean;
}

/**
 * Answered by `WorkflowSubjects.runTarget`, or workflow_not_found / not_published.
 * The runner validates `diagram` fully before starting (contract: start-run rule 7).
 */
export interface RunTarget {
  workflowId: string;
  workflowName: string;
  projectId: string;
  /** The published version number; null for a draft run. */
  version: number | null;
  timeZone: string;
  diagram: Diagram;
  pausedAt: string | null;
}
