import { IsBoolean, IsEmail, IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

import { PLAN_IDS, type PlanId } from '../billing/plan.js';
import { MEMBER_ROLES, type MemberRole } from '../common/principal.js';
import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';

export class AdminOrgCreate {
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name!: string;

  @IsIn(PLAN_IDS)
  plan!: PlanId;

  @IsOptional()
  @IsBoolean()
  complimentary?: boolean;
}

export interface AdminOrgCreated {
  organizationId: string;
  apiKey: string;
}

export class AdminKeyCreate {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  organizationId!: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name?: string;
}

export class AdminSetPlan {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  organizationId!: string;

  @IsIn(PLAN_IDS)
  plan!: PlanId;

  @IsOptional()
  @IsBoolean()
  complimentary?: boolean;
}

export class AdminUserCreate {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  organizationId!: string;

  @IsEmail()
  @MaxLength(254)
  email!: string;

  @IsString()
  @MinLength(8)
  @MaxLength(128)
  password!: string;

  @IsIn(MEMBER_ROLES)
  role!: MemberRole;

  @IsOptional()
  @IsString()
  @MaxLength(100)
  name?: string;
}
