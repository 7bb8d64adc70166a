import { ServiceConfig } from '#common';
import { IsString, MinLength } from 'class-validator';

export class CatalogConfig extends ServiceConfig {
  override HEALTH_PORT: number = 3101;

  /** Signs sessions and derives better-auth's keys; set a long random value in production. */
  @IsString()
  @MinLength(32, { message: 'AUTH_SECRET must be at least 32 characters' })
  AUTH_SECRET: string = 'development-only-secret-change-me-please-0000';

  /** The public address of the gateway, where browsers reach /api/auth. */
  @IsString()
  PUBLIC_URL: string = 'http://localhost:3000';
}
