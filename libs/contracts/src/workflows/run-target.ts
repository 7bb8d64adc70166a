import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';

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

/** Workflows asked about at once in a `RunTargetsRequest`, at most. */
export const RUN_TARGETS_AT_ONCE_MAX = 500;

/** One published workflow of a `RunTargetsRequest`, with the version the caller holds, if any. */
export class PublishedTargetRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  workflowId!: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  knownVersion?: number;
}

/** The live versions of many workflows at once (a batch of scheduled starts): what `runTarget` answers for each. */
export class RunTargetsRequest {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(RUN_TARGETS_AT_ONCE_MAX)
  @ValidateNested({ each: true })
  @Type(() => PublishedTargetRequest)
  workflows!: PublishedTargetRequest[];
}

/**
 * Each workflow's target in the request's order, or the code `runTarget` would have refused it
 * with. A diagram is null when the caller holds that version, or when the reply had no room left
 * for it (`diagramLeftOut`): the caller then asks `runTarget` for that one alone.
 */
export interface RunTargetsReply {
  targets: Array<
    | (RunTarget & { diagramLeftOut: boolean })
    | { workflowId: string; error: { code: 'workflow_not_found' | 'not_published'; message: string } }
  >;
}
