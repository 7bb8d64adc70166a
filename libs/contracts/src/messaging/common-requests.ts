import { Type } from 'class-transformer';
import { IsIn, IsObject, IsString, MaxLength, ValidateIf, ValidateNested } from 'class-validator';

import { MEMBER_ROLES, type MemberRole, type Principal } from '../common/principal.js';
import { PageQueryDto } from '../common/page.dto.js';
import type { RequestClass } from './subject-catalog.js';

/** Ids are UUIDs, but a path id is any string the caller typed: bounded, then simply not found. */
export const MESSAGE_ID_MAX_LENGTH = 200;

/** The caller every organization-scoped message carries, checked like any other field. */
export class PrincipalMessage implements Principal {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  organizationId!: string;

  @ValidateIf((_object, value) => value !== null)
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  userId!: string | null;

  @ValidateIf((_object, value) => value !== null)
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  keyId!: string | null;

  @IsIn(MEMBER_ROLES)
  role!: MemberRole;
}

export class IdRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  id!: string;
}

export class EmptyRequest {}

export interface IdAndBody<TBody extends object> {
  id: string;
  body: TBody;
}

export interface IdAndQuery {
  id: string;
  query: PageQueryDto;
}

const bodyClasses = new Map<RequestClass<object>, RequestClass<IdAndBody<object>>>();

/** `{id, body}` with `body` validated as `Body`: the shape of every update-like subject. */
export function IdAndBodyOf<TBody extends object>(Body: RequestClass<TBody>): RequestClass<IdAndBody<TBody>> {
  const existing = bodyClasses.get(Body);
  if (existing) return existing as RequestClass<IdAndBody<TBody>>;
  class IdAndBodyRequest extends IdRequest {
    @IsObject()
    @ValidateNested()
    @Type(() => Body)
    body!: TBody;
  }
  Object.defineProperty(IdAndBodyRequest, 'name', { value: `${Body.name.replace(/Dto$/, '')}Request` });
  bodyClasses.set(Body, IdAndBodyRequest);
  return IdAndBodyRequest;
}

/** `{id, query}`: a page of something that belongs to the resource `id`. */
export class IdAndQueryRequest extends IdRequest implements IdAndQuery {
  @IsObject()
  @ValidateNested()
  @Type(() => PageQueryDto)
  query!: PageQueryDto;
}
