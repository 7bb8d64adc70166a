import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, ValidateNested } from 'class-validator';

import { EnumField, OptionalTextField } from '../common/field.decorators.js';
import { CANCEL_REASON_MAX_LENGTH } from '../runs/run-control.dto.js';
import { OrganizationRunFilterDto } from '../runs/run-filter.dto.js';
import { BULK_RUN_ACTIONS, type BulkRunAction } from './operation-status.js';

/** The body of `POST /api/v1/runs/bulk`. */
export class BulkRunsDto {
  @EnumField(BULK_RUN_ACTIONS, {
    description:
      '`cancel` each matched run (as `POST /runs/{id}/cancel` with `reason`), or `rerun` it (as `POST /runs/{id}/rerun` with no body: from its first failed step).',
  })
  action!: BulkRunAction;

  /** The runs to act on: the filters of `GET /api/v1/runs`, matched once, when the operation is accepted. */
  @ApiProperty({
    type: () => OrganizationRunFilterDto,
    description:
      'The runs to act on, as `GET /api/v1/runs` filters them (`status` is a list here). Matched once, when the operation is accepted: runs started later are not acted on. `{}` matches every run of the organization.',
  })
  @IsObject()
  @ValidateNested()
  @Type(() => OrganizationRunFilterDto)
  filter!: OrganizationRunFilterDto;

  @OptionalTextField({
    max: CANCEL_REASON_MAX_LENGTH,
    description: "A cancel's reason, kept in each run's `error`; ignored by `rerun`.",
  })
  reason?: string;
}
