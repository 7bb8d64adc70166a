import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

import { EnumField } from '../common/field.decorators.js';
import { INTEGRATION_IDS, type IntegrationId } from './integrations.js';

export const CONNECTION_HEALTH = ['healthy', 'unhealthy'] as const;
export type ConnectionHealth = (typeof CONNECTION_HEALTH)[number];

/** An app connection as members see it: its credentials never leave the events service. */
export class ConnectionDto {
  @ApiProperty()
  id!: string;

  @ApiProperty({ enum: INTEGRATION_IDS })
  integrationId!: IntegrationId;

  @ApiProperty()
  name!: string;

  @ApiProperty({
    enum: CONNECTION_HEALTH,
    description: '`unhealthy` after its app refused the connection (bad credentials, a gone URL).',
  })
  health!: ConnectionHealth;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}

/** A connection just made: a `webhook` connection's signing secret is shown this once. */
export class CreatedConnectionDto extends ConnectionDto {
  @ApiPropertyOptional({ description: 'The `whsec_…` signing secret of a webhook connection.' })
  secret?: string;
}

export const CONNECTION_CONFIG_MAX_BYTES = 16 * 1024;

/** The body of `POST /app/connections`. `config` is the integration's own: see docs/events.md. */
export class CreateConnectionDto {
  @EnumField(INTEGRATION_IDS)
  integrationId!: IntegrationId;

  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name!: string;

  /** `http`: `{headers?}` sent with every request; `slack`: `{webhookUrl}`; `webhook`: nothing. */
  @IsOptional()
  @IsObject()
  config?: Record<string, unknown>;
}
