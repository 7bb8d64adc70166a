import { IsString, MaxLength } from 'class-validator';

import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import type { ModelCallUsage } from '../usage/token-usage.js';

/** A conversation with an agent: one per Agent step run, titled `<workflow name> · run <run id>`. */
export interface ThreadDto {
  id: string;
  agentId: string;
  title: string;
  /** The run whose Agent step started it; null for a member's chat. */
  runId: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One message as the AI SDK models it: a user's text, the assistant's text and tool calls, tool results. */
export interface ThreadMessageDto {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: unknown;
  /**
   * Extension: on an assistant message, the tokens of the model call that produced it; null on the
   * others (and on messages kept before usage was recorded).
   */
  usage: ModelCallUsage | null;
  createdAt: string;
}

export interface ThreadDetailDto extends ThreadDto {
  messages: ThreadMessageDto[];
}

export class AgentThreadRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  agentId!: string;

  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  threadId!: string;
}
