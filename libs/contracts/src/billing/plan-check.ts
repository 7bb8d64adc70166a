import { IsIn, IsInt, IsString, MaxLength, Min } from 'class-validator';

import { PLAN_RESOURCES, type PlanResource } from './plan.js';

type CountedResource = Exclude<PlanResource, 'runs'>;
const COUNTED_RESOURCES = PLAN_RESOURCES.filter(
  (resource): resource is CountedResource => resource !== 'runs',
);

/** Asks catalog whether one more `resource` fits: `current` is what the asking service holds now. */
export class PlanCheckRequest {
  @IsIn(COUNTED_RESOURCES)
  resource!: CountedResource;

  @IsInt()
  @Min(0)
  current!: number;
}

export class ConsumeRunRequest {
  /** Deduplicates retries: the same run counts once. */
  @IsString()
  @MaxLength(200)
  runId!: string;
}
