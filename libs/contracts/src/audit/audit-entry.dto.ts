import { ApiProperty } from '@nestjs/swagger';

/** Who made a change: a signed-in member, an organization key, or the service itself. */
export const AUDIT_ACTOR_TYPES = ['member', 'key', 'service'] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

export class AuditActorDto {
  @ApiProperty({
    enum: AUDIT_ACTOR_TYPES,
    description: '`member` (a signed-in member), `key` (an organization key) or `service` (the system).',
  })
  type!: AuditActorType;

  @ApiProperty({
    type: String,
    nullable: true,
    description: "The member's user id or the key's id; null for the service.",
  })
  id!: string | null;
}

export class AuditResourceDto {
  @ApiProperty({ description: 'What kind of thing changed: `project`, `workflow`, `run`, `key`, …' })
  type!: string;

  @ApiProperty()
  id!: string;

  @ApiProperty({ type: String, nullable: true, description: 'Its name when the change was made.' })
  name!: string | null;
}

/** One change, as the audit log keeps it. Never holds a secret. */
export class AuditEntryDto {
  @ApiProperty()
  id!: string;

  @ApiProperty({ format: 'date-time', description: 'When the change was made (millisecond precision).' })
  at!: string;

  @ApiProperty({ type: () => AuditActorDto })
  actor!: AuditActorDto;

  @ApiProperty({ description: 'A stable dotted name, such as `workflow.published` or `run.cancelled`.' })
  action!: string;

  @ApiProperty({ type: () => AuditResourceDto })
  resource!: AuditResourceDto;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'A few facts about the change (which fields, which version); never a secret.',
  })
  details!: Record<string, unknown>;

  @ApiProperty({ type: String, nullable: true, description: 'The client address the gateway saw.' })
  clientAddress!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The client's User-Agent header." })
  userAgent!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The `x-request-id` of the request that made the change.',
  })
  requestId!: string | null;
}
