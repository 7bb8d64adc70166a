import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';

import { AGENT_PROVIDERS, type AgentProvider } from '../agents/agent.dto.js';
import { TOKEN_BUDGET_MAX } from './token-usage.js';

const MONTH_PATTERN = /^\d{4}-(0[1-9]|1[0-2])$/;

/** `GET /api/v1/usage`: the month to report, UTC. */
export class UsageQueryDto {
  @ApiPropertyOptional({
    type: String,
    pattern: MONTH_PATTERN.source,
    example: '2026-11',
    description: 'The UTC month, `YYYY-MM`; default this month.',
  })
  @IsOptional()
  @IsString()
  @Matches(MONTH_PATTERN, { message: '$property must be a month as YYYY-MM' })
  month?: string;
}

/** `PUT /api/v1/usage/budget`: the organization's monthly token budget, or none. */
export class SetUsageBudgetDto {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: TOKEN_BUDGET_MAX,
    description:
      "Tokens (input + output) the organization's agents may use in a UTC month before a step waits for an owner's approval; null for no budget.",
  })
  @ValidateIf((_object: object, value: unknown) => value !== null)
  @IsInt()
  @Min(1)
  @Max(TOKEN_BUDGET_MAX)
  monthlyTokenBudget!: number | null;
}

export class UsageBudgetDto {
  @ApiProperty({ type: 'integer', nullable: true, description: 'Null: no organization budget.' })
  monthlyTokenBudget!: number | null;
}

export class TokenCountsDto {
  @ApiProperty({ type: 'integer', description: 'Model calls.' })
  calls!: number;

  @ApiProperty({ type: 'integer', description: 'Input tokens, the cached ones included.' })
  inputTokens!: number;

  @ApiProperty({ type: 'integer', description: 'Output tokens, the reasoning ones included.' })
  outputTokens!: number;

  @ApiProperty({ type: 'integer' })
  reasoningTokens!: number;

  @ApiProperty({ type: 'integer' })
  cachedInputTokens!: number;

  @ApiProperty({ type: 'integer', description: '`inputTokens + outputTokens`: what budgets count.' })
  totalTokens!: number;

  @ApiProperty({
    type: Number,
    nullable: true,
    description:
      "Estimated cost in USD from the operator's price table (`MODEL_PRICES`); null when a model used has no price.",
  })
  estimatedCost!: number | null;
}

export class UsageRowDto extends TokenCountsDto {
  @ApiProperty({ type: String, nullable: true, description: 'Null for the workflow assistant.' })
  agentId!: string | null;

  @ApiProperty({
    description:
      "The agent's name when it was used (kept after the agent is deleted); `Assistant` for the workflow assistant.",
  })
  agentName!: string;

  @ApiProperty({ enum: AGENT_PROVIDERS })
  provider!: AgentProvider;

  @ApiProperty({ description: "The model that answered (the provider's default when the agent names none)." })
  model!: string;
}

export class UsageDto {
  @ApiProperty({ example: '2026-11' })
  month!: string;

  @ApiProperty({ type: () => [UsageRowDto], description: 'By agent and model, most tokens first.' })
  rows!: UsageRowDto[];

  @ApiProperty({ type: TokenCountsDto })
  totals!: TokenCountsDto;

  @ApiProperty({ type: 'integer', nullable: true, description: "The organization's monthly token budget." })
  monthlyTokenBudget!: number | null;
}

/** The `modelUsage` extension of `GET /api/v1/billing`: this month's model tokens and their cost. */
export class BillingModelUsageDto extends TokenCountsDto {
  @ApiProperty({ example: '2026-11' })
  month!: string;

  @ApiProperty({ type: 'integer', nullable: true, description: "The organization's monthly token budget." })
  monthlyTokenBudget!: number | null;
}
