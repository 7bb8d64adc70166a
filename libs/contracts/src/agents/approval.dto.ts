import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsString, MaxLength, ValidateNested } from 'class-validator';

import { EnumField, OptionalTextField } from '../common/field.decorators.js';
import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';

export const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'expired'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export const APPROVAL_DECISIONS = ['approve', 'deny'] as const;
export type ApprovalDecisionKind = (typeof APPROVAL_DECISIONS)[number];

export const APPROVAL_REASON_MAX_LENGTH = 1_000;

/** An approval waits this long for a decision before it expires and its step fails. */
export const APPROVAL_TTL_SECONDS = 72 * 60 * 60;

/** `POST /api/v1/runs/{id}/approvals/{approvalId}`. */
export class DecideApprovalDto {
  @EnumField(APPROVAL_DECISIONS, {
    description:
      '`approve` runs the action and resumes the agent with its result; `deny` resumes it with the reason.',
  })
  decision!: ApprovalDecisionKind;

  @OptionalTextField({
    max: APPROVAL_REASON_MAX_LENGTH,
    description: 'Given to the agent (and kept) with the decision.',
  })
  reason?: string;
}

export class ApprovalDecisionDto {
  @ApiProperty()
  id!: string;

  @ApiProperty({ enum: APPROVAL_STATUSES })
  status!: ApprovalStatus;

  @ApiProperty({ description: 'The action the agent called, `<provider>__<action>`.' })
  tool!: string;

  @ApiProperty({ type: String, nullable: true })
  reason!: string | null;

  @ApiProperty({
    description:
      "The approved action's outcome: `{status, result}` as the action answered, or `{error}` when it failed; null when denied.",
    nullable: true,
  })
  result!: unknown;
}

/** An agent action waiting for a decision, as the dashboard lists it. */
export interface PendingApprovalDto {
  runId: string;
  workflowId: string;
  workflowName: string;
  tool: string;
  expiresAt: string;
}

/** One ask-first call of an Agent step, as its `approvals` output field lists it (JSON text). */
export interface StepApproval {
  id: string;
  tool: string;
  input: unknown;
  status: ApprovalStatus;
  reason: string | null;
}

/** `AgentSubjects.approvalsDecide`. */
export class DecideApprovalRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  runId!: string;

  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  approvalId!: string;

  @IsObject()
  @ValidateNested()
  @Type(() => DecideApprovalDto)
  body!: DecideApprovalDto;
}
