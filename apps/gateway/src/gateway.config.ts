import { NATS_PASSWORD_PATTERN, type NatsEndpoint } from '#nats';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

import { DEFAULT_CONSOLE_DIR } from './console/console-assets.js';

export class GatewayConfig {
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number = 3000;

  @IsString()
  HOST: string = '0.0.0.0';

  @IsString()
  NATS_URL: string = 'nats://127.0.0.1:4222';

  /** Requests per hour for each organization key and each signed-in member. */
  @IsInt()
  @Min(1)
  RATE_LIMIT_PER_HOUR: number = 1000;

  /** How long a resolved credential is trusted before catalog is asked again. */
  @IsInt()
  @Min(0)
  AUTH_CACHE_TTL_MS: number = 30_000;

  @IsInt()
  @Min(100)
  RPC_TIMEOUT_MS: number = 10_000;

  /**
   * How long the dashboard waits for the services' parts. A part that does not answer in time is
   * shown as it last answered, marked stale; without an earlier answer the dashboard answers 503.
   */
  @IsInt()
  @Min(200)
  DASHBOARD_TIMEOUT_MS: number = 2_000;

  /** How long a part's last answer may stand in for one that does not come. */
  @IsInt()
  @Min(0)
  DASHBOARD_STALE_MAX_MS: number = 3_600_000;

  /** A query batch may carry 100 statements of 100,000 characters, so bodies may be large. */
  @IsInt()
  @Min(1024)
  BODY_LIMIT_BYTES: number = 32 * 1024 * 1024;

  /** How often a run's event stream sends a comment line while the run does not change. */
  @IsInt()
  @Min(100)
  RUN_STREAM_HEARTBEAT_MS: number = 15_000;

  /** The built web console (apps/console), served at `/`; without an index.html there, no console. */
  @IsString()
  CONSOLE_DIR: string = DEFAULT_CONSOLE_DIR;

  /** The address browsers use; better-auth checks request origins against it. */
  @IsString()
  PUBLIC_URL: string = 'http://localhost:3000';

  /** The NATS password of user `gateway`. Unset, gateway connects anonymously: for development only. */
  @IsOptional()
  @Matches(NATS_PASSWORD_PATTERN, {
    message: 'NATS_GATEWAY_PASSWORD must be 16 to 128 letters and digits, starting with a letter',
  })
  NATS_GATEWAY_PASSWORD?: string;

  get natsEndpoint(): NatsEndpoint {
    return { url: this.NATS_URL, identity: 'gateway', password: this.NATS_GATEWAY_PASSWORD };
  }
}
