import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** The longest a `?wait=` or a `Prefer: wait=` holds an answer back (docs/runs.md, "Live runs"). */
export const RUN_WAIT_MAX_SECONDS = 60;

/** Query of `GET /api/v1/runs/{id}`: an extension beyond the contract. */
export class RunWaitQueryDto {
  /**
   * Extension beyond the contract. Whole seconds to hold the answer back until the run is final or
   * `paused`, or `waiting` on an approval or on a delay or retry due after them (one due sooner is
   * waited through); after them the run is answered as it stands.
   * Counts as one request against the rate limit, however long it waits.
   */
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: RUN_WAIT_MAX_SECONDS,
    description:
      'Extension beyond the contract. Whole seconds (0 to 60) to hold the answer back until the run is `complete`, `errored`, `terminated` or `paused`, or `waiting` on an approval or on a delay or retry due after them (one due sooner is waited through); after them the run is answered as it stands. One request against the rate limit, however long it waits.',
  })
  @IsOptional()
  // Digits only: `1.5`, `1e1`, `0x10`, ` 5` and an empty value are refused rather than read as numbers.
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value,
  )
  @IsInt({ message: 'wait must be a whole number of seconds' })
  @Min(0)
  @Max(RUN_WAIT_MAX_SECONDS)
  wait?: number;
}
