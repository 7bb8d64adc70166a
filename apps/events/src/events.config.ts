import { NATS_PASSWORD_PATTERN, type NatsEndpoint, natsProductionProblems } from '#nats';
import { looksLikePlaceholder, ServiceConfig } from '#common';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

import { parseEncryptionKey } from './connections/credential-cipher.js';

/**
 * Whether a connections key is a secret one: set, and not a phrase anyone could read (the development
 * overlay's key is `flowmesh-development-key-32bytes`, in hex or base64), judged on its bytes.
 */
function isSecretKey(value: string | undefined): boolean {
  if (value === undefined || value.trim() === '') return false;
  let key: Buffer;
  try {
    key = parseEncryptionKey(value);
  } catch {
    // Not 32 bytes: the service refuses it on its own, naming what it takes.
    return true;
  }
  return !looksLikePlaceholder(value) && !looksLikePlaceholder(key.toString('latin1'));
}

export class EventsConfig extends ServiceConfig {
  override HEALTH_PORT: number = 3105;

  /** Postgres connections of this process: ingress, fan-out and the routes share them. */
  override DATABASE_POOL_SIZE: number = 16;

  /**
   * The key connection credentials are encrypted with (AES-256-GCM): 32 bytes as base64 or 64 hex
   * digits. Unset, a fixed development key is used and a warning logged: never in production.
   */
  @IsOptional()
  @IsString()
  CONNECTIONS_ENCRYPTION_KEY?: string;

  /** Lets actions call loopback, private and link-local addresses: for tests and closed networks only. */
  // Read from the raw variable: implicit conversion would make the text "false" true.
  @Transform(({ obj, key }) => {
    const raw: unknown = (obj as Record<string, unknown>)[key];
    return raw === true || raw === 'true' || raw === '1';
  })
  @IsBoolean()
  ACTIONS_ALLOW_PRIVATE_NETWORKS: boolean = false;

  /** An app's answer to an action may be this long at most; a longer one fails the attempt. */
  @IsInt()
  @Min(1024)
  @Max(16 * 1024 * 1024)
  ACTION_RESPONSE_MAX_BYTES: number = 1024 * 1024;

  /** Event fan-outs and replays this process works on at once. */
  @IsInt()
  @Min(1)
  EVENTS_CONCURRENCY: number = 32;

  /** Deliveries of one fan-out job before JetStream gives up on it (the sweeper still finds its event). */
  @IsInt()
  @Min(2)
  EVENTS_MAX_DELIVER: number = 20;

  /**
   * How often stored events whose fan-out did not finish (a lost publish, a crash) are queued
   * again, and how old such an event must be before it is.
   */
  @IsInt()
  @Min(100)
  EVENTS_SWEEP_INTERVAL_MS: number = 5_000;

  /** How often events past the 30 days of the contract are deleted. */
  @IsInt()
  @Min(1_000)
  EVENTS_RETENTION_INTERVAL_MS: number = 60 * 60_000;

  /** Attempts of one run notification before it is `failed` (docs/notifications.md). */
  @IsInt()
  @Min(1)
  @Max(30)
  NOTIFICATIONS_MAX_ATTEMPTS: number = 10;

  /** The wait after a notification's first failed attempt; it doubles after each further one. */
  @IsInt()
  @Min(100)
  NOTIFICATIONS_RETRY_BASE_MS: number = 3 * 60_000;

  /** The longest wait between two attempts of a notification. */
  @IsInt()
  @Min(100)
  NOTIFICATIONS_RETRY_MAX_DELAY_MS: number = 10 * 3_600_000;

  /** How long an endpoint has to answer one attempt. */
  @IsInt()
  @Min(1_000)
  @Max(120_000)
  NOTIFICATIONS_TIMEOUT_MS: number = 15_000;

  /** Notification attempts this process sends at once. */
  @IsInt()
  @Min(1)
  @Max(256)
  NOTIFICATIONS_CONCURRENCY: number = 16;

  /** How often each process looks for notifications that are due (a new one is sent at once). */
  @IsInt()
  @Min(100)
  NOTIFICATIONS_POLL_INTERVAL_MS: number = 1_000;

  /** How long a request to another service (catalog, runner) may take before it fails. */
  @IsInt()
  @Min(100)
  RPC_TIMEOUT_MS: number = 10_000;

  /** The NATS password of user `events`. Unset, events connects anonymously: for development only. */
  @IsOptional()
  @Matches(NATS_PASSWORD_PATTERN, {
    message: 'NATS_EVENTS_PASSWORD must be 16 to 128 letters and digits, starting with a letter',
  })
  NATS_EVENTS_PASSWORD?: string;

  override productionProblems(): string[] {
    const problems = natsProductionProblems(this.natsEndpoint);
    if (!isSecretKey(this.CONNECTIONS_ENCRYPTION_KEY)) {
      problems.push(
        'set CONNECTIONS_ENCRYPTION_KEY to 32 random bytes (openssl rand -base64 32): without it, or with a known one, connection credentials are sealed with a key anyone can read',
      );
    }
    return problems;
  }

  get natsEndpoint(): NatsEndpoint {
    return { url: this.NATS_URL, identity: 'events', password: this.NATS_EVENTS_PASSWORD };
  }
}
