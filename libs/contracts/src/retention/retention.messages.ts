import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, ValidateBy } from 'class-validator';

import { PLAN_IDS, type PlanId } from '../billing/plan.js';
import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';

/**
 * What an operator bounds (docs/retention.md): the payloads of a run's steps (`run_steps.input`,
 * `output`, `state`), and the node properties of the diagram a run stored.
 */
export const RETENTION_KINDS = ['step_payload', 'diagram'] as const;
export type RetentionKind = (typeof RETENTION_KINDS)[number];

/**
 * At least a day: a run's end is followed by what watches it (error workflows, notifications) within
 * seconds to hours, and people look at yesterday's failures. At most a hundred years.
 */
export const RETENTION_DAYS_MIN = 1;
export const RETENTION_DAYS_MAX = 36_500;

/** Days a kind is kept in full, or null: kept for good (the default). */
export type RetentionDays = number | null;

/**
 * A setting as the operator writes it: days, `keep` (never trimmed), or, for an organization,
 * `plan` (its override removed, so its plan's setting applies again).
 */
export type RetentionChoice = number | 'keep' | 'plan';

function IsRetentionChoice(): PropertyDecorator {
  return ValidateBy({
    name: 'isRetentionChoice',
    validator: {
      validate: (value: unknown) =>
        value === 'keep' ||
        value === 'plan' ||
        (typeof value === 'number' &&
          Number.isInteger(value) &&
          value >= RETENTION_DAYS_MIN &&
          value <= RETENTION_DAYS_MAX),
      defaultMessage: (args) =>
        `${args?.property} must be a whole number of days from ${RETENTION_DAYS_MIN} to ${RETENTION_DAYS_MAX}, keep or plan`,
    },
  });
}

/** `retention set`: exactly one of `plan` and `organizationId`, and at least one setting. */
export class AdminRetentionSet {
  @IsOptional()
  @IsIn(PLAN_IDS)
  plan?: PlanId;

  @IsOptional()
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  organizationId?: string;

  @IsOptional()
  @IsRetentionChoice()
  stepPayloadDays?: RetentionChoice;

  @IsOptional()
  @IsRetentionChoice()
  diagramDays?: RetentionChoice;
}

/** `retention show`: every plan and the organizations with settings of their own, or one organization. */
export class AdminRetentionShow {
  @IsOptional()
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  organizationId?: string;
}

export interface PlanRetention {
  plan: PlanId;
  stepPayloadDays: RetentionDays;
  diagramDays: RetentionDays;
}

/** An organization's own settings: days, `keep`, or absent where its plan's applies. */
export interface RetentionOverrides {
  stepPayloadDays?: number | 'keep';
  diagramDays?: number | 'keep';
}

export interface OrganizationRetentionReport {
  organizationId: string;
  plan: PlanId;
  overrides: RetentionOverrides;
  /** What applies to it: its own setting where it has one, else its plan's. */
  effective: { stepPayloadDays: RetentionDays; diagramDays: RetentionDays };
}

export interface RetentionReport {
  plans: PlanRetention[];
  organizations: OrganizationRetentionReport[];
  /** More organizations have settings of their own than one answer lists. */
  more: boolean;
}

export const RETENTION_ORGANIZATIONS_PAGE_MAX = 1_000;

/** A page of the organizations whose effective setting trims something, by id after `after`. */
export class RetentionOrganizationsRequest {
  @IsOptional()
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  after?: string;

  @IsInt()
  @Min(1)
  @Max(RETENTION_ORGANIZATIONS_PAGE_MAX)
  limit!: number;
}

/** An organization's effective setting: at least one of the two is not null. */
export interface OrganizationRetention {
  organizationId: string;
  stepPayloadDays: RetentionDays;
  diagramDays: RetentionDays;
}

export interface RetentionOrganizationsPage {
  organizations: OrganizationRetention[];
  /** Where the next page starts (`after`); null on the last page. */
  next: string | null;
}
