import { ArrayMaxSize, ArrayMinSize, IsArray, IsString, MaxLength } from 'class-validator';

import { STARTS_AT_ONCE_MAX } from '../runs/start-run.request.js';

import type { PlanResource } from './plan.js';

/** The organization's plan limits, for services that enforce one of them on what they hold. */
export interface PlanLimitsReply {
  limits: Record<PlanResource, number>;
}

export interface ConsumeRunReply {
  counted: boolean;
  /** The plan's `queueShare`; absent from a catalog older than it, which counts as 1. */
  queueShare?: number;
}

export class ConsumeRunRequest {
  /** Deduplicates retries: the same run counts once. */
  @IsString()
  @MaxLength(200)
  runId!: string;
}

/** Gives back a run counted by `usageConsumeRun` that was never started (its start failed after it). */
export class RefundRunRequest {
  @IsString()
  @MaxLength(200)
  runId!: string;
}

/** Counts many runs of one organization at once, in their order, as far as the plan lets them. */
export class ConsumeRunsRequest {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(STARTS_AT_ONCE_MAX)
  @IsString({ each: true })
  @MaxLength(200, { each: true })
  runIds!: string[];
}

export interface ConsumeRunsReply {
  /** The runs the plan had no room for: the last of the request's, none counted. */
  refused: string[];
  /** The monthly run limit that applied. */
  limit: number;
  queueShare: number;
}
