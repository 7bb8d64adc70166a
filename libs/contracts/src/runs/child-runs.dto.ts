import { ApiPropertyOptional, IntersectionType, PickType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, MaxLength, MinLength, ValidateNested } from 'class-validator';

import { PageQueryDto } from '../common/page.dto.js';
import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import { DIAGRAM_ID_MAX_LENGTH } from '../workflows/diagram.js';
import { RunFilterDto } from './run-filter.dto.js';

/**
 * How deep runs may start runs: a run nothing started is at depth 0, a child at its parent's depth
 * plus one. A child past this depth is refused and the step that would start it fails, which is what
 * stops workflows that call each other in a cycle (docs/runs.md, "Child runs").
 */
export const RUN_MAX_DEPTH = 10;

/** Query of `GET /api/v1/runs/{id}/children`: a page, the step that started them, their statuses. */
export class ChildRunsQueryDto extends IntersectionType(PageQueryDto, PickType(RunFilterDto, ['status'])) {
  @ApiPropertyOptional({
    type: String,
    minLength: 1,
    maxLength: DIAGRAM_ID_MAX_LENGTH,
    description: 'Only the children the step of this node started (a `workflow` or `loop` node).',
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(DIAGRAM_ID_MAX_LENGTH)
  nodeId?: string;
}

/** `RunnerSubjects.runsChildren`. */
export class ListChildRunsRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  id!: string;

  @IsObject()
  @ValidateNested()
  @Type(() => ChildRunsQueryDto)
  query!: ChildRunsQueryDto;
}
