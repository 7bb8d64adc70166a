import { IsString, MaxLength } from 'class-validator';

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
