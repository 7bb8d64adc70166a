import { ApiPropertyOptional } from '@nestjs/swagger';

import { TriggerChoiceDto } from '../runs/trigger-choice.dto.js';
import { ErrorIssueDto } from './error-issue.dto.js';

/** What an error has more to say. Each code carries only its own keys, so every key is optional. */
export class ErrorDetailsDto {
  @ApiPropertyOptional({
    type: [ErrorIssueDto],
    description: 'invalid_request and invalid_workflow: each problem found.',
  })
  issues?: ErrorIssueDto[];

  @ApiPropertyOptional({
    type: [TriggerChoiceDto],
    description: "trigger_required: the workflow's Trigger nodes to choose from.",
  })
  triggers?: TriggerChoiceDto[];

  @ApiPropertyOptional({ description: 'plan_limit_reached: what the plan limits, e.g. `projects`.' })
  resource?: string;

  @ApiPropertyOptional({
    type: 'integer',
    description: "plan_limit_reached: the plan's limit; rate_limited: requests allowed an hour.",
  })
  limit?: number;

  @ApiPropertyOptional({ type: 'integer', description: 'rate_limited: seconds until the window resets.' })
  retryAfterSeconds?: number;

  @ApiPropertyOptional({
    type: 'integer',
    description:
      'query_failed, result_too_large, internal (a stopped statement): 0-based index of the statement.',
  })
  statementIndex?: number;

  @ApiPropertyOptional({
    type: 'integer',
    description: 'result_too_large: bytes of rows read before the limit.',
  })
  bytesRead?: number;

  @ApiPropertyOptional({ type: 'integer', description: 'result_too_large: the limit in bytes.' })
  limitBytes?: number;
}
