import { DomainException } from '#common';
import { IsString, MaxLength, MinLength } from 'class-validator';

import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import { type AgentChatDto, CHAT_MESSAGE_MAX_LENGTH } from './agent-chat.dto.js';

/** `AgentSubjects.chatStream`: one turn of a member's chat with an agent. */
export class AgentChatRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  agentId!: string;

  /** The client's chat id: a thread of this agent is continued; anything else starts a new thread. */
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  chatId!: string;

  /** The member's new message. */
  @IsString()
  @MinLength(1)
  @MaxLength(CHAT_MESSAGE_MAX_LENGTH)
  text!: string;
}

/**
 * The turn a chat body asks for: the text parts of its last user message, and nothing else of what
 * the browser sent (the conversation so far is the stored thread's, never the client's copy).
 */
export function chatRequestOf(agentId: string, body: AgentChatDto): AgentChatRequest {
  const index = body.messages.findLastIndex((message) => message.role === 'user');
  const message = body.messages[index];
  if (!message) {
    throw DomainException.invalidRequest([
      { path: 'messages', message: 'messages must hold a user message' },
    ]);
  }
  const text = message.parts
    .flatMap((part) => (part.type === 'text' && part.text !== undefined ? [part.text] : []))
    .join('\n');
  if (text.trim() === '') {
    throw DomainException.invalidRequest([
      { path: `messages.${index}.parts`, message: 'the last user message must have text' },
    ]);
  }
  if (text.length > CHAT_MESSAGE_MAX_LENGTH) {
    throw DomainException.invalidRequest([
      {
        path: `messages.${index}.parts`,
        message: `the last user message must be at most ${CHAT_MESSAGE_MAX_LENGTH} characters (it has ${text.length})`,
      },
    ]);
  }
  return { agentId, chatId: body.id, text };
}
