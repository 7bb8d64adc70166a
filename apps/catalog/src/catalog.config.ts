import { NATS_PASSWORD_PATTERN, type NatsEndpoint } from '#nats';
import { ServiceConfig } from '#common';
import { IsOptional, IsString, Matches, MinLength } from 'class-validator';

export class CatalogConfig extends ServiceConfig {
  override HEALTH_PORT: number = 3101;

  /** Signs sessions and derives better-auth's keys; set a long random value in production. */
  @IsString()
  @MinLength(32, { message: 'AUTH_SECRET must be at least 32 characters' })
  AUTH_SECRET: string = 'development-only-secret-change-me-please-0000';

  /** The public address of the gateway, where browsers reach /api/auth. */
  @IsString()
  PUBLIC_URL: string = 'http://localhost:3000';

  /** The NATS password of user `catalog`. Unset, catalog connects anonymously: for development only. */
  @IsOptional()
  @Matches(NATS_PASSWORD_PATTERN, {
    message: 'NATS_CATALOG_PASSWORD must be 16 to 128 letters and digits, starting with a letter',
  })
  NATS_CATALOG_PASSWORD?: string;

  get natsEndpoint(): NatsEndpoint {
    return { url: this.NATS_URL, identity: 'catalog', password: this.NATS_CATALOG_PASSWORD };
  }
}
