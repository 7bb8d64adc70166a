import { applyDecorators } from '@nestjs/common';
import { IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import type { DiagramIssue } from '../workflows/validate-diagram.js';
import type { Diagram } from '../workflows/diagram.js';
import { AgentChatDto, CHAT_MESSAGE_MAX_LENGTH } from './agent-chat.dto.js';
import { chatRequestOf } from './agent-chat.request.js';

/** An id of what the member is looking at, which a turn may leave out. */
const OptionalId = () => applyDecorators(IsOptional(), IsString(), MaxLength(MESSAGE_ID_MAX_LENGTH));

/**
 * The body of `POST /app/assistant` (sessions only): what `useChat`'s DefaultChatTransport sends,
 * plus what the member is looking at. docs/agents.md, "The assistant".
 */
export class AssistantChatDto extends AgentChatDto {
  /** The workflow whose draft the assistant edits; without it, it drafts a new workflow. */
  @OptionalId()
  workflowId?: string;

  /** Without a workflow: the project the new workflow is meant for. */
  @OptionalId()
  projectId?: string;

  /** A run the member asks about ("Explain this failure"). */
  @OptionalId()
  runId?: string;
}

/** `AgentSubjects.assistantStream`: one turn of a member's conversation with the assistant. */
export class AssistantTurnRequest {
  /** The client's chat id: a conversation of this member is continued; anything else starts one. */
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  conversationId!: string;

  @IsString()
  @MinLength(1)
  @MaxLength(CHAT_MESSAGE_MAX_LENGTH)
  text!: string;

  @OptionalId()
  workflowId?: string;

  @OptionalId()
  projectId?: string;

  @OptionalId()
  runId?: string;
}

/** The turn an assistant body asks for: its last user message's text, and what the member looks at. */
export function assistantRequestOf(body: AssistantChatDto): AssistantTurnRequest {
  const { chatId, text } = chatRequestOf('', body);
  return {
    conversationId: chatId,
    text,
    ...(body.workflowId === undefined ? {} : { workflowId: body.workflowId }),
    ...(body.projectId === undefined ? {} : { projectId: body.projectId }),
    ...(body.runId === undefined ? {} : { runId: body.runId }),
  };
}

/** The input of the assistant's `propose_workflow` tool. */
export interface WorkflowProposal {
  name: string;
  diagram: Diagram;
  explanation: string;
}

/**
 * What `propose_workflow` answers, to the model and (as the tool part's output) to the console: the
 * diagram as proposed, and whether it would publish.
 */
export interface ProposalVerdict {
  valid: boolean;
  issues: DiagramIssue[];
  diagram: unknown;
}

/** The message metadata of an assistant answer: its conversation, and (at the end) the turn's tokens. */
export interface AssistantMessageMetadata {
  conversationId: string;
  usage?: { inputTokens: number; outputTokens: number; totalTokens: number };
}
