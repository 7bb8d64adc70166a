import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';

/** The text a member may send in one chat message. */
export const CHAT_MESSAGE_MAX_LENGTH = 100_000;

/**
 * `useChat` sends the whole conversation with every message by default; the service reads only the
 * last user message (the history comes from the thread), so these bounds only keep a body finite.
 */
export const CHAT_MESSAGES_MAX = 1_000;
export const CHAT_PARTS_MAX = 1_000;

export const CHAT_ROLES = ['system', 'user', 'assistant'] as const;

/** A part of a UI message: only text parts are read; the fields of the others are dropped. */
export class ChatUiPartDto {
  @IsString()
  @MaxLength(100)
  type!: string;

  // Not bounded here: an assistant's long answer in the history must not refuse the next message.
  // The user's new text is bounded once it is taken (`chatRequestOf`).
  @ValidateIf((part: ChatUiPartDto) => part.type === 'text')
  @IsString()
  text?: string;
}

/** A UI message as the AI SDK's `useChat` sends it. */
export class ChatUiMessageDto {
  @IsOptional()
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  id?: string;

  @IsIn(CHAT_ROLES)
  role!: (typeof CHAT_ROLES)[number];

  @IsArray()
  @ArrayMaxSize(CHAT_PARTS_MAX)
  @ValidateNested({ each: true })
  @Type(() => ChatUiPartDto)
  parts!: ChatUiPartDto[];
}

/**
 * The body of `POST /app/agents/{id}/chat`: what `useChat`'s DefaultChatTransport sends. Other fields
 * it may send (`messageId`, a client's own extras) are dropped.
 */
export class AgentChatDto {
  /** The chat: a thread of this agent to continue, or any other id to start a new thread. */
  @IsString()
  @MinLength(1)
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  id!: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(CHAT_MESSAGES_MAX)
  @ValidateNested({ each: true })
  @Type(() => ChatUiMessageDto)
  messages!: ChatUiMessageDto[];

  /** Regenerating an answer would add the question to the thread a second time. */
  @IsOptional()
  @IsIn(['submit-message'], {
    message: 'trigger must be submit-message: regenerating an answer is not supported',
  })
  trigger?: 'submit-message';
}
