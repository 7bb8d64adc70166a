import type { PlanResource } from './plan.js';

/** Asks catalog whether one more `resource` fits: `current` is what the asking service holds now. */
export interface PlanCheckRequest {
  resource: Exclude<PlanResource, 'runs'>;
  current: number;
}

export interface ConsumeRunRequest {
  /** Deduplicates retries: the same run counts once. */
  runId: string;
}
