import { ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';

import { EnumField, OptionalDateTimeField } from '../common/field.decorators.js';
import { PageQueryDto } from '../common/page.dto.js';
import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import { AUDIT_ACTOR_TYPES, type AuditActorType } from './audit-entry.dto.js';

/** `workflow.published`, `run`: lowercase words joined by dots, underscores or hyphens. */
const NAME_PATTERN = /^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)*$/;
/** An action, or a prefix of actions ending in a dot: `workflow.`. */
const ACTION_PATTERN = /^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)*\.?$/;

function NameFilter(description: string, pattern: RegExp = NAME_PATTERN): PropertyDecorator {
  return (target, key) => {
    ApiPropertyOptional({ type: String, maxLength: 100, pattern: pattern.source, description })(target, key);
    IsOptional()(target, key);
    IsString()(target, key);
    MaxLength(100)(target, key);
    Matches(pattern, { message: `$property must match ${pattern.source}` })(target, key);
  };
}

function IdFilter(description: string): PropertyDecorator {
  return (target, key) => {
    ApiPropertyOptional({ type: String, maxLength: MESSAGE_ID_MAX_LENGTH, description })(target, key);
    IsOptional()(target, key);
    IsString()(target, key);
    MaxLength(MESSAGE_ID_MAX_LENGTH)(target, key);
  };
}

/** The filters of `GET /api/v1/audit`; without them, every entry of the organization. */
export class AuditFilterDto {
  @NameFilter(
    'Only this action (`workflow.published`), or every action under a prefix ending in a dot (`workflow.`).',
    ACTION_PATTERN,
  )
  action?: string;

  @EnumField(AUDIT_ACTOR_TYPES, { optional: true, description: 'Only changes made by this kind of actor.' })
  actorType?: AuditActorType;

  @IdFilter("Only changes made by this member's user id or this key's id.")
  actorId?: string;

  @NameFilter('Only changes to this kind of resource (`workflow`, `run`, `key`, …).')
  resourceType?: string;

  @IdFilter('Only changes to the resource with this id.')
  resourceId?: string;

  @OptionalDateTimeField('Only changes made at or after this instant (ISO 8601 with a time zone).')
  from?: string;

  @OptionalDateTimeField('Only changes made before this instant (ISO 8601 with a time zone).')
  to?: string;
}

/** Query of `GET /api/v1/audit`: a page, and the filters. */
export class AuditQueryDto extends IntersectionType(PageQueryDto, AuditFilterDto) {}
