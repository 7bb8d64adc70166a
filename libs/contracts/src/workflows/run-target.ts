import { IsBoolean, IsInt, IsOptional, IsString, MaxLength, Min } from 'class-validator';

import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import type { Diagram } from './diagram.js';

/** Asks workflow for what a run executes: the live version, or the draft when `draft` is true. */
export class RunTargetRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  workflowId!: string;

  @IsBoolean()
  draft!: boolean;

  /**
   * A published version the caller holds already. Versions never change once published, so when it
   * is still the live one the answer leaves its diagram out (`diagram: null`); the rest of the
   * answer (whether the workflow exists, is paused, which version is live) is always read anew.
   */
  @IsOptional()
  @IsInt()
  @Min(1)
  knownVersion?: number;
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
  /** Null only when `version` is the request's `knownVersion`: the caller has that diagram. */
  diagram: Diagram | null;
  pausedAt: string | null;
}
