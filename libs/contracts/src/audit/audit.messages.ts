import { Type } from 'class-transformer';
import {
  IsInt,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';

import { MAX_PAGE_SIZE } from '../common/page.dto.js';
import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import type { AuditEntryDto } from './audit-entry.dto.js';
import { AuditFilterDto } from './audit-query.dto.js';

/** Where a page of the audit log starts: after the entry at this (at, id), newest first. */
export class AuditPosition {
  @IsISO8601({ strict: true })
  at!: string;

  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  id!: string;
}

/**
 * `<service>.audit.list`: up to `limit` of the service's entries for the caller's organization that
 * match `filter`, newest first by (at, id), after `after`. The gateway asks every owning service and
 * merges their answers (docs/audit.md).
 */
export class AuditListRequest {
  @IsObject()
  @ValidateNested()
  @Type(() => AuditFilterDto)
  filter!: AuditFilterDto;

  @IsOptional()
  @ValidateNested()
  @Type(() => AuditPosition)
  after?: AuditPosition;

  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE + 1)
  limit!: number;
}

export interface AuditListReply {
  data: AuditEntryDto[];
}
