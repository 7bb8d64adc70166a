import { IsBoolean, IsString, MaxLength } from 'class-validator';

import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import type { Diagram } from './diagram.js';

/** Asks workflow for what a run executes: the live version, or the draft when `draft` is true. */
export class RunTargetRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  workflowId!: string;

  @IsBoolean()
  draft!: boolean;
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
