import { NATS_PASSWORD_PATTERN, type NatsEndpoint } from '#nats';
import { ServiceConfig } from '#common';
import { IsInt, IsOptional, Matches, Min } from 'class-validator';

export class AgentConfig extends ServiceConfig {
  override HEALTH_PORT: number = 3106;

  /** How long a request to another service (catalog, database, events) may take before it fails. */
  @IsInt()
  @Min(100)
  RPC_TIMEOUT_MS: number = 10_000;

  /** The NATS password of user `agent`. Unset, agent connects anonymously: for development only. */
  @IsOptional()
  @Matches(NATS_PASSWORD_PATTERN, {
    message: 'NATS_AGENT_PASSWORD must be 16 to 128 letters and digits, starting with a letter',
  })
  NATS_AGENT_PASSWORD?: string;

  get natsEndpoint(): NatsEndpoint {
    return { url: this.NATS_URL, identity: 'agent', password: this.NATS_AGENT_PASSWORD };
  }
}
