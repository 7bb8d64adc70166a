import type { ProductionChecked } from '#common';
import { HOOK_BODY_MAX_BYTES } from '#contracts';
import { NATS_PASSWORD_PATTERN, type NatsEndpoint, natsProductionProblems } from '#nats';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

import type { BodySize } from './auth/route-config.js';
import { DEFAULT_CONSOLE_DIR } from './console/console-assets.js';

export class GatewayConfig implements ProductionChecked {
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number = 3000;

  @IsString()
  HOST: string = '0.0.0.0';

  /**
   * The port of the gateway's own `/metrics` server (Prometheus text format), apart from the public
   * port so that scrapes need no route through the ingress; 0 picks a free one. In the all-in-one
   * process it shows the metrics of every app the process runs.
   */
  @IsInt()
  @Min(0)
  @Max(65535)
  METRICS_PORT: number = 9464;

  /** `true` serves `/metrics` on the public port as well, without credentials. Off unless set. */
  // Read from the raw variable: implicit conversion would make the text "false" true.
  @Transform(({ obj, key }) => {
    const raw: unknown = (obj as Record<string, unknown>)[key];
    return raw === true || raw === 'true' || raw === '1';
  })
  @IsBoolean()
  METRICS_ON_PUBLIC_PORT: boolean = false;

  @IsString()
  NATS_URL: string = 'nats://127.0.0.1:4222';

  /** Requests per hour for each organization key and each signed-in member. */
  @IsInt()
  @Min(1)
  RATE_LIMIT_PER_HOUR: number = 1000;

  /**
   * Requests per hour for a whole organization, all its keys and members together: more keys buy no
   * more of the service than this. Unset, ten credentials' worth (`organizationRateLimitPerHour`).
   */
  @IsOptional()
  @IsInt()
  @Min(1)
  ORGANIZATION_RATE_LIMIT_PER_HOUR?: number;

  /**
   * Requests of one organization this gateway has in flight to the services at once; the rest wait
   * their turn, so one organization's burst cannot crowd out another's requests (0: no bound).
   */
  @IsInt()
  @Min(0)
  ORGANIZATION_REQUESTS_IN_FLIGHT: number = 4;

  /** Requests per minute to `/api/auth/*` (sign-in, sign-out, invitations…) from one client address. */
  @IsInt()
  @Min(1)
  AUTH_RATE_LIMIT_PER_MINUTE: number = 60;

  /** Webhook deliveries per minute to `/hooks/*` from one client address. */
  @IsInt()
  @Min(1)
  HOOKS_RATE_LIMIT_PER_MINUTE: number = 6_000;

  /**
   * Refused credentials per minute from one client address; past it, the address's requests are
   * answered 429 without asking catalog, so guessing keys cannot load it.
   */
  @IsInt()
  @Min(1)
  FAILED_CREDENTIALS_PER_MINUTE: number = 60;

  /**
   * Which proxies in front of the gateway to believe about the client's address
   * (`X-Forwarded-For`): `false` (none: the address is the connection's), `true` (any: only behind a
   * proxy that overwrites the header), a number of proxy hops, or comma-separated addresses and CIDR
   * ranges of the proxies. The address keys the per-address limits.
   */
  @IsString()
  @Matches(/^(true|false|\d{1,2}|[0-9a-fA-F.:/]+(\s*,\s*[0-9a-fA-F.:/]+)*)$/, {
    message: 'TRUST_PROXY must be true, false, a hop count, or comma-separated addresses or CIDR ranges',
  })
  TRUST_PROXY: string = 'false';

  /**
   * Run streams, chat streams and waiting reads (`?wait`, `Prefer: wait`) one organization may hold
   * open at once on this gateway; a wait past it answers at once, a stream past it 429.
   */
  @IsInt()
  @Min(1)
  LIVE_HOLDS_PER_ORGANIZATION: number = 100;

  /**
   * How long an MCP tool call waits for its run (docs/mcp.md); clients give a call 60 s unless its
   * progress notifications reset their timeout, so the default answers before that.
   */
  @IsInt()
  @Min(1)
  @Max(3600)
  MCP_TOOL_WAIT_SECONDS: number = 55;

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

  /** The largest request body a route takes, but for those below. */
  @IsInt()
  @Min(1024)
  BODY_LIMIT_BYTES: number = 1024 * 1024;

  /** A query batch may carry 100 statements of 100,000 characters with their params. */
  @IsInt()
  @Min(1024)
  QUERY_BODY_LIMIT_BYTES: number = 16 * 1024 * 1024;

  /** Creating or changing a workflow carries its diagram; so does an agent chat its history. */
  @IsInt()
  @Min(1024)
  DIAGRAM_BODY_LIMIT_BYTES: number = 4 * 1024 * 1024;

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

  /**
   * Where the console links a run's trace: a URL with `{traceId}` in it, such as
   * `https://jaeger.example/trace/{traceId}`. Unset, the console shows no link (docs/tracing.md).
   */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s]*\{traceId\}[^\s]*$/, {
    message: 'TRACE_VIEWER_URL must be an http(s) URL with {traceId} in it',
  })
  TRACE_VIEWER_URL?: string;

  /** The NATS password of user `gateway`. Unset, gateway connects anonymously: for development only. */
  @IsOptional()
  @Matches(NATS_PASSWORD_PATTERN, {
    message: 'NATS_GATEWAY_PASSWORD must be 16 to 128 letters and digits, starting with a letter',
  })
  NATS_GATEWAY_PASSWORD?: string;

  get organizationRateLimitPerHour(): number {
    return this.ORGANIZATION_RATE_LIMIT_PER_HOUR ?? 10 * this.RATE_LIMIT_PER_HOUR;
  }

  /** Fastify's `trustProxy` for this setting. */
  get trustProxy(): boolean | string[] | ((address: string, hop: number) => boolean) {
    const value = this.TRUST_PROXY.trim();
    if (value === 'true' || value === 'false') return value === 'true';
    if (/^\d+$/.test(value)) {
      const hops = Number(value);
      return (_address, hop) => hop < hops;
    }
    return value.split(',').map((part) => part.trim());
  }

  bodyLimitOf(size: BodySize | undefined): number {
    switch (size) {
      case undefined:
        return this.BODY_LIMIT_BYTES;
      case 'query':
        return this.QUERY_BODY_LIMIT_BYTES;
      case 'diagram':
        return this.DIAGRAM_BODY_LIMIT_BYTES;
      case 'hook':
        // Deliveries are small; the events service refuses a larger one anyway.
        return HOOK_BODY_MAX_BYTES;
    }
  }

  productionProblems(): string[] {
    return natsProductionProblems(this.natsEndpoint);
  }

  get natsEndpoint(): NatsEndpoint {
    return { url: this.NATS_URL, identity: 'gateway', password: this.NATS_GATEWAY_PASSWORD };
  }
}
