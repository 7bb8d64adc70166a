import { IsString, MaxLength } from 'class-validator';

import type { PlanResource } from './plan.js';

/** The organization's plan limits, for services that enforce one of them on what they hold. */
export interface PlanLimitsReply {
  limits: Record<PlanResource, number>;
}

export class ConsumeRunRequest {
  /** Deduplicates retries: the same run counts once. */
  @IsString()
  @MaxLength(200)
  runId!: string;
}
