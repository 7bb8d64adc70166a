import { NATS_PASSWORD_PATTERN, type NatsEndpoint, natsProductionProblems } from '#nats';
import { ServiceConfig } from '#common';
import { AGENT_PROVIDERS, type AgentProvider, APPROVAL_TTL_SECONDS } from '#contracts';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  Validate,
  type ValidationArguments,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';

import { type ModelPrices, parseModelPrices } from './usage/model-prices.util.js';

/** `MODEL_PRICES` must be a price table; the message lists every problem in it. */
@ValidatorConstraint({ name: 'modelPrices' })
class ModelPricesValid implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && 'prices' in parseModelPrices(value);
  }

  defaultMessage({ value }: ValidationArguments): string {
    const parsed = parseModelPrices(typeof value === 'string' ? value : undefined);
    const problems = 'problems' in parsed ? parsed.problems : ['must be JSON text'];
    return `MODEL_PRICES must be {"<provider>/<model>": {"input": <USD per million tokens>, "output": …, "reasoning"?: …, "cached"?: …}}: ${problems.join('; ')}`;
  }
}

export class AgentConfig extends ServiceConfig {
  override HEALTH_PORT: number = 3106;

  /** How long a request to another service (catalog, database, events) may take before it fails. */
  @IsInt()
  @Min(100)
  RPC_TIMEOUT_MS: number = 10_000;

  /** The AI gateway: an OpenAI-compatible base URL (`https://…/v1`), its key and its default model. */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  AI_GATEWAY_URL?: string;

  @IsOptional()
  @IsString()
  AI_GATEWAY_API_KEY?: string;

  @IsOptional()
  @IsString()
  AI_GATEWAY_DEFAULT_MODEL?: string;

  /** A model server next to the platform (Ollama, vLLM), OpenAI-compatible, and its default model. */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  PLATFORM_AI_URL: string = 'http://127.0.0.1:11434/v1';

  @IsOptional()
  @IsString()
  PLATFORM_AI_DEFAULT_MODEL?: string;

  /** Model calls of one Agent step at most (each tool round trip is one). */
  @IsInt()
  @Min(1)
  @Max(100)
  AGENT_MAX_STEPS: number = 10;

  /** One model call may take this long. */
  @IsInt()
  @Min(1_000)
  AGENT_MODEL_TIMEOUT_MS: number = 60_000;

  /** The assistant's provider and model (docs/agents.md, "The assistant"); no model: the provider's default. */
  @IsIn(AGENT_PROVIDERS)
  ASSISTANT_PROVIDER: AgentProvider = 'gateway';

  @IsOptional()
  @IsString()
  ASSISTANT_MODEL?: string;

  /** Proposals that would not publish which one assistant turn may make before it must stop proposing. */
  @IsInt()
  @Min(1)
  @Max(10)
  ASSISTANT_MAX_INVALID_PROPOSALS: number = 3;

  /** A tool's result is given to the model up to this many characters. */
  @IsInt()
  @Min(100)
  AGENT_TOOL_RESULT_MAX_CHARS: number = 20_000;

  /** An ask-first call waits this long for a decision; then it expires and its step fails. */
  @IsInt()
  @Min(1)
  @Max(APPROVAL_TTL_SECONDS)
  APPROVAL_TTL_SECONDS: number = APPROVAL_TTL_SECONDS;

  /** How often decided approvals whose run was not woken yet, and unsent emails, are retried. */
  @IsInt()
  @Min(100)
  APPROVAL_UPKEEP_INTERVAL_MS: number = 2_000;

  /** Where admins are emailed about approvals (`smtp://user:pass@host:587`); unset, no email is sent. */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['smtp', 'smtps'] })
  SMTP_URL?: string;

  @IsString()
  SMTP_FROM: string = 'Flowmesh <no-reply@localhost>';

  /** The address members open the console at: emails link to runs under it. */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  PUBLIC_URL: string = 'http://localhost:3000';

  /**
   * The price table that turns tokens into an estimated cost (docs/usage.md), JSON:
   * `{"gateway/gpt-4o-mini": {"input": 0.15, "output": 0.6}}` in USD per million tokens. Unset, no
   * model has a price and every estimated cost is null.
   */
  @IsOptional()
  @Validate(ModelPricesValid)
  MODEL_PRICES?: string;

  /** The NATS password of user `agent`. Unset, agent connects anonymously: for development only. */
  @IsOptional()
  @Matches(NATS_PASSWORD_PATTERN, {
    message: 'NATS_AGENT_PASSWORD must be 16 to 128 letters and digits, starting with a letter',
  })
  NATS_AGENT_PASSWORD?: string;

  override productionProblems(): string[] {
    return natsProductionProblems(this.natsEndpoint);
  }

  /** `MODEL_PRICES` read once (it was validated at boot). */
  get modelPrices(): ModelPrices {
    this.prices ??= (() => {
      const parsed = parseModelPrices(this.MODEL_PRICES);
      return 'prices' in parsed ? parsed.prices : new Map();
    })();
    return this.prices;
  }

  private prices?: ModelPrices;

  get natsEndpoint(): NatsEndpoint {
    return { url: this.NATS_URL, identity: 'agent', password: this.NATS_AGENT_PASSWORD };
  }
}
