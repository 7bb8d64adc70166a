import { ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';

import { EnumField, OptionalDateTimeField } from '../common/field.decorators.js';
import { PageQueryDto } from '../common/page.dto.js';
import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import { RUN_STATUSES, type RunStatus } from './run-status.js';
import { RUN_TRIGGERS, type RunTrigger } from './start-run.request.js';

/** `?status=a&status=b` arrives as an array, `?status=a` as a string: both become an array. */
const toList = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? [value] : value);

/**
 * What narrows a list of runs: the filters of `GET /api/v1/workflows/{id}/runs`. Extensions beyond
 * the contract; without them the list is every run, as before.
 */
export class RunFilterDto {
  /**
   * Runs in any of these statuses (repeat the parameter: `status=errored&status=terminated`).
   * `unknown` is what a run older than 30 days reads: it selects those runs, whatever their stored
   * status; every other status selects only runs of the last 30 days, as their status reads.
   */
  @ApiPropertyOptional({
    type: [String],
    enum: RUN_STATUSES,
    maxItems: RUN_STATUSES.length,
    description:
      'Runs in any of these statuses; repeat the parameter (`status=errored&status=terminated`). A run older than 30 days reads `unknown`: `unknown` selects those runs whatever their stored status, and every other status selects only runs of the last 30 days.',
  })
  @IsOptional()
  @Transform(toList)
  @IsArray()
  @ArrayMaxSize(RUN_STATUSES.length)
  @IsIn(RUN_STATUSES as unknown as RunStatus[], {
    each: true,
    message: `each value of status must be one of: ${RUN_STATUSES.join(', ')}`,
  })
  status?: RunStatus[];

  /** What started the runs. */
  @EnumField(RUN_TRIGGERS, { optional: true, description: 'Only runs started this way.' })
  trigger?: RunTrigger;

  @OptionalDateTimeField(
    'Only runs created at or after this instant (ISO 8601 with a time zone). With `createdBefore`, a half-open range: windows side by side neither overlap nor leave a gap.',
  )
  createdAfter?: string;

  @OptionalDateTimeField('Only runs created before this instant (ISO 8601 with a time zone).')
  createdBefore?: string;
}

/** The filters of the organization's runs: a workflow's, plus the workflow itself. */
export class OrganizationRunFilterDto extends RunFilterDto {
  @ApiPropertyOptional({
    type: String,
    maxLength: MESSAGE_ID_MAX_LENGTH,
    description: 'Only runs of this workflow.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  workflowId?: string;
}

/** Query of `GET /api/v1/workflows/{id}/runs`: a page, and the filters. */
export class WorkflowRunsQueryDto extends IntersectionType(PageQueryDto, RunFilterDto) {}

/** Query of `GET /api/v1/runs`: a page of the organization's runs, and the filters. */
export class RunsQueryDto extends IntersectionType(PageQueryDto, OrganizationRunFilterDto) {}
