import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsObject, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

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
    description:
      '`unhealthy` after its app refused the connection (bad credentials, a gone URL) or could not be ' +
      'reached (an MCP server that is down); `healthy` again once it answers.',
  })
  health!: ConnectionHealth;

  @ApiPropertyOptional({
    type: [String],
    description:
      'An `http` connection with headers: the origins its headers may be sent to. Empty for one made ' +
      'before connections named them: its headers go nowhere until an owner or admin sets them. An ' +
      "`mcp` connection: its server's origin, the only one its credentials go to (not changeable).",
  })
  allowedOrigins?: string[];

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}

/** A connection just made: a `webhook` connection's two signing secrets are shown this once. */
export class CreatedConnectionDto extends ConnectionDto {
  @ApiPropertyOptional({
    description: 'The `whsec_…` secret deliveries to `/hooks/{id}` are signed with (a webhook connection).',
  })
  secret?: string;

  @ApiPropertyOptional({
    description:
      'The `whsec_…` secret `webhook__send` signs with, for receivers to verify (a webhook connection).',
  })
  sendingSecret?: string;
}

/** A new sending secret of a webhook connection, shown this once. */
export interface SendingSecretDto {
  sendingSecret: string;
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

  /**
   * `http`: `{headers?, allowedOrigins?}`: headers sent with requests to those origins only
   * (required with headers); `slack`: `{webhookUrl}`; `webhook`: nothing; `mcp`: `{url, bearerToken?,
   * headers?}`: the MCP server's Streamable HTTP endpoint and what is sent to its origin only
   * (docs/mcp.md). An `mcp` connection is made only once the server has listed its tools.
   */
  @IsOptional()
  @IsObject()
  config?: Record<string, unknown>;
}

export const ALLOWED_ORIGINS_MAX = 20;

/** The body of `PATCH /app/connections/{id}`: what members may change of a connection, nothing secret. */
export class UpdateConnectionDto {
  /** `http` with headers: the origins (`scheme://host[:port]`) its headers may be sent to. */
  @IsArray()
  @ArrayMaxSize(ALLOWED_ORIGINS_MAX)
  @IsString({ each: true })
  @MaxLength(2048, { each: true })
  allowedOrigins!: string[];
}

/** What members may read and change of a connection's config. */
export type ConnectionSettings = Partial<Pick<UpdateConnectionDto, 'allowedOrigins'>>;
