import { NATS_PASSWORD_PATTERN, type NatsEndpoint, natsProductionProblems } from '#nats';
import { looksLikePlaceholder, ServiceConfig } from '#common';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Min, MinLength } from 'class-validator';

import { SIGNUP_MODES, type SignupMode } from './auth/signup-mode.js';

const DEVELOPMENT_AUTH_SECRET = 'development-only-secret-change-me-please-0000';

export class CatalogConfig extends ServiceConfig {
  override HEALTH_PORT: number = 3101;

  /** Signs sessions and derives better-auth's keys; set a long random value in production. */
  @IsString()
  @MinLength(32, { message: 'AUTH_SECRET must be at least 32 characters' })
  AUTH_SECRET: string = DEVELOPMENT_AUTH_SECRET;

  /** The public address of the gateway, where browsers reach /api/auth; invitation links point under it. */
  @IsString()
  PUBLIC_URL: string = 'http://localhost:3000';

  /**
   * Who may make an account over HTTP (docs/architecture.md, "Who may join"): `closed`, nobody (operators make accounts with
   * the admin CLI, and only people who have one can be invited); `invite`, whoever holds an invitation,
   * for the invited address; `open`, anyone. Organizations are made by operators in every mode.
   */
  @IsIn(SIGNUP_MODES)
  SIGNUP: SignupMode = 'closed';

  /**
   * Where invitations are emailed from (`smtp://user:pass@host:587`); the agent service reads the same
   * variable for its approval emails. Unset, the invitation is logged and the console shows its link.
   */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['smtp', 'smtps'] })
  SMTP_URL?: string;

  @IsString()
  SMTP_FROM: string = 'Flowmesh <no-reply@localhost>';

  /**
   * How long a project delete waits for the workflow service to take over the project's workflows
   * before it answers; past it the delete still answers (the project is already gone for everyone)
   * and the sweep finishes. Well under the gateway's own timeout of its request.
   */
  @IsInt()
  @Min(100)
  DELETE_WAIT_MS: number = 3_000;

  /** How often each replica looks for deleted projects that are not finished. */
  @IsInt()
  @Min(50)
  PURGE_INTERVAL_MS: number = 1_000;

  /** The lease of one attempt to finish a deleted project, and so the wait after a failed one. */
  @IsInt()
  @Min(1_000)
  PURGE_RETRY_MS: number = 30_000;

  /** The NATS password of user `catalog`. Unset, catalog connects anonymously: for development only. */
  @IsOptional()
  @Matches(NATS_PASSWORD_PATTERN, {
    message: 'NATS_CATALOG_PASSWORD must be 16 to 128 letters and digits, starting with a letter',
  })
  NATS_CATALOG_PASSWORD?: string;

  override productionProblems(): string[] {
    const problems = natsProductionProblems(this.natsEndpoint);
    if (this.AUTH_SECRET === DEVELOPMENT_AUTH_SECRET || looksLikePlaceholder(this.AUTH_SECRET)) {
      problems.push(
        'set AUTH_SECRET to 32 or more random characters (openssl rand -base64 48): it signs every session, and this one is a development value or a placeholder',
      );
    }
    return problems;
  }

  get natsEndpoint(): NatsEndpoint {
    return { url: this.NATS_URL, identity: 'catalog', password: this.NATS_CATALOG_PASSWORD };
  }
}
