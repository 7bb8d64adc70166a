import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsOptional,
  IsString,
  MaxLength,
  IsInt,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

import { EnumField, OptionalTextField, SlugField, TextField } from '../common/field.decorators.js';
import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import { TOKEN_BUDGET_MAX } from '../usage/token-usage.js';

export const AGENT_PROVIDERS = ['gateway', 'platform-ai'] as const;
export type AgentProvider = (typeof AGENT_PROVIDERS)[number];

export const THINKING_LEVELS = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

/** Grants of one kind an agent may hold: enough for any real agent, bounded for the store. */
export const AGENT_GRANTS_MAX = 100;
export const AGENT_INSTRUCTIONS_MAX_LENGTH = 100_000;
export const AGENT_MODEL_MAX_LENGTH = 200;

/** A list of ids (or refs) granted to an agent. */
function IdsField(description: string, { optional = false } = {}): PropertyDecorator {
  return applyDecorators(
    optional
      ? ApiPropertyOptional({ type: [String], maxItems: AGENT_GRANTS_MAX, description })
      : ApiProperty({ type: [String], maxItems: AGENT_GRANTS_MAX, description }),
    ...(optional ? [IsOptional()] : []),
    IsArray(),
    ArrayMaxSize(AGENT_GRANTS_MAX),
    IsString({ each: true }),
    MaxLength(MESSAGE_ID_MAX_LENGTH, { each: true }),
  );
}

/**
 * An extension beyond the contract: tokens (input + output) the agent may use in a UTC month before
 * its Agent steps wait for an owner's approval; null for no budget. Only owners set it.
 */
function MonthlyTokenBudgetField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      nullable: true,
      minimum: 1,
      maximum: TOKEN_BUDGET_MAX,
      description:
        "Extension: tokens (input + output) the agent may use in a UTC month before an Agent step waits for an owner's approval; null (the default) for no budget. Only owners may set it.",
    }),
    ValidateIf((_object: object, value: unknown) => value !== undefined && value !== null),
    IsInt(),
    Min(1),
    Max(TOKEN_BUDGET_MAX),
  );
}

/** Per app connection, the actions the agent may call, and those that wait for approval first. */
export class AppGrantDto {
  @TextField({ min: 1, max: MESSAGE_ID_MAX_LENGTH })
  connectionId!: string;

  @TextField({ min: 1, max: 100, description: "The connection's integration, e.g. `http`." })
  integrationId!: string;

  @IdsField(
    'Action refs `<provider>__<action>` of the integration; for an `mcp` connection, `mcp__<tool>` for each tool of its server the agent may call (docs/mcp.md).',
  )
  actions!: string[];

  @IdsField('The picked refs that wait for approval before running.')
  approvals!: string[];
}

/** The output form: the contract states no difference from the input. */
export class AppGrantOutput extends AppGrantDto {}

export class AgentDto {
  @ApiProperty()
  id!: string;

  @ApiProperty({ description: 'Unique in the organization.' })
  name!: string;

  @ApiProperty()
  description!: string;

  @ApiProperty()
  instructions!: string;

  @ApiProperty({ enum: AGENT_PROVIDERS })
  provider!: AgentProvider;

  @ApiProperty({ description: "Empty runs the provider's default model." })
  model!: string;

  @ApiProperty({ enum: THINKING_LEVELS })
  thinkingLevel!: ThinkingLevel;

  @ApiProperty({ type: () => [AppGrantOutput] })
  apps!: AppGrantOutput[];

  @ApiProperty({ type: [String], description: 'Skill ids mounted.' })
  skills!: string[];

  @ApiProperty({ type: [String], description: 'Database ids the agent may query.' })
  databases!: string[];

  @ApiProperty({ type: [String], description: 'The picked databases the agent may also write to.' })
  databaseWrites!: string[];

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description:
      "Extension: the agent's monthly token budget (input + output tokens per UTC month); null for none.",
  })
  monthlyTokenBudget!: number | null;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}

/** The body of `POST /api/v1/agents`; omitted fields take the contract's defaults. */
export class CreateAgentDto {
  @SlugField()
  name!: string;

  @OptionalTextField({ max: 1024 })
  description?: string;

  @OptionalTextField({ max: AGENT_INSTRUCTIONS_MAX_LENGTH })
  instructions?: string;

  @EnumField(AGENT_PROVIDERS, { optional: true, description: 'Default `gateway`.' })
  provider?: AgentProvider;

  @OptionalTextField({
    max: AGENT_MODEL_MAX_LENGTH,
    description: "Default empty: the provider's default model.",
  })
  model?: string;

  @EnumField(THINKING_LEVELS, { optional: true, description: 'Default `medium`.' })
  thinkingLevel?: ThinkingLevel;

  @ApiPropertyOptional({ type: () => [AppGrantDto], maxItems: AGENT_GRANTS_MAX })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(AGENT_GRANTS_MAX)
  @ValidateNested({ each: true })
  @Type(() => AppGrantDto)
  apps?: AppGrantDto[];

  @IdsField('Skill ids to mount.', { optional: true })
  skills?: string[];

  @IdsField('Database ids the agent may query.', { optional: true })
  databases?: string[];

  @IdsField('Of `databases`, those the agent may also write to.', { optional: true })
  databaseWrites?: string[];

  @MonthlyTokenBudgetField()
  monthlyTokenBudget?: number | null;
}

/** The body of `PATCH /api/v1/agents/{id}`: only the fields sent change. */
export class UpdateAgentDto {
  @SlugField({ optional: true })
  name?: string;

  @OptionalTextField({ max: 1024 })
  description?: string;

  @OptionalTextField({ max: AGENT_INSTRUCTIONS_MAX_LENGTH })
  instructions?: string;

  @EnumField(AGENT_PROVIDERS, { optional: true })
  provider?: AgentProvider;

  @OptionalTextField({ max: AGENT_MODEL_MAX_LENGTH })
  model?: string;

  @EnumField(THINKING_LEVELS, { optional: true })
  thinkingLevel?: ThinkingLevel;

  @ApiPropertyOptional({ type: () => [AppGrantDto], maxItems: AGENT_GRANTS_MAX })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(AGENT_GRANTS_MAX)
  @ValidateNested({ each: true })
  @Type(() => AppGrantDto)
  apps?: AppGrantDto[];

  @IdsField('Skill ids to mount.', { optional: true })
  skills?: string[];

  @IdsField('Database ids the agent may query.', { optional: true })
  databases?: string[];

  @IdsField('Of `databases`, those the agent may also write to.', { optional: true })
  databaseWrites?: string[];

  @MonthlyTokenBudgetField()
  monthlyTokenBudget?: number | null;
}

/** Ids asked about by another service: which of them exist in the caller's organization. */
export class IdsRequest {
  @IsArray()
  @ArrayMaxSize(AGENT_GRANTS_MAX)
  @IsString({ each: true })
  @MaxLength(MESSAGE_ID_MAX_LENGTH, { each: true })
  ids!: string[];
}

export interface ExistingIds {
  ids: string[];
}

/** A skill as an agent mounts it: listed by name and description, loaded whole by `load_skill`. */
export interface MountedSkill {
  id: string;
  name: string;
  description: string;
  instructions: string;
}

/** An Agent step may take this long in all, model calls and tools together; the runner waits a little longer. */
export const AGENT_STEP_TIMEOUT_MS = 5 * 60_000;
export const AGENT_TASK_MAX_LENGTH = 100_000;

/** `AgentSubjects.stepsRun`: one Agent step of a run, done unattended in a new thread. */
export class AgentStepRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  agentId!: string;

  @IsString()
  @MaxLength(AGENT_TASK_MAX_LENGTH)
  task!: string;

  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  runId!: string;

  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  nodeId!: string;

  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  workflowId!: string;

  @IsString()
  @MaxLength(200)
  workflowName!: string;

  /** Set when the step resumes after waiting for approvals: the thread its conversation is in. */
  @IsOptional()
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  threadId?: string;

  /** The step runs again because its runner died during an earlier execution of it. */
  @IsOptional()
  @IsBoolean()
  interrupted?: boolean;
}

/** The Agent step's output fields. */
export interface AgentStepOutput {
  response: string;
  /** The thread the step's conversation is kept in. */
  thread: string;
  /** One line per tool call: the tool and `ok`, or the tool and its error. */
  tools: string;
  /** The ask-first calls of the step (`StepApproval[]`), as JSON text. */
  approvals: string;
  /** Extension: the tokens of each model call of the step and their sum (`StepUsage`), as JSON text. */
  usage: string;
}

/**
 * `done`: the agent answered. `waiting`: it called ask-first actions; the step sleeps until `until`
 * (the first approval's expiry) unless a decision wakes it, and resumes with `threadId`.
 */
export type AgentStepResult =
  | { status: 'done'; output: AgentStepOutput }
  | { status: 'waiting'; until: string; threadId: string; output: AgentStepOutput };
