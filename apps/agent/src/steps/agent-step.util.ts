import { DomainException } from '#common';
import type { AgentStepOutput, MountedSkill, StepUsage } from '#contracts';
import {
  APICallError,
  InvalidResponseDataError,
  JSONParseError,
  type ModelMessage,
  RetryError,
  TypeValidationError,
} from 'ai';

import type { AgentRecord } from '../agents/agent.mapper.js';
import type { ApprovalRecord } from '../approvals/approval.mapper.js';
import { toStepApproval } from '../approvals/approvals.service.js';
import { toolLines } from './agent-tools.js';
import { LanguageModels } from './language-models.js';

/** Said to every agent that runs as a step: nobody is there to answer it. */
const UNATTENDED =
  'You are running unattended, as one step of an automated workflow. Nobody can answer questions: ' +
  'do what the task allows, and state any assumptions you made in your reply.';

/**
 * The agent's instructions, the note that nobody can answer it (for a workflow step, not for a
 * member's chat, where someone can), and the list of its skills.
 */
export function systemPromptOf(
  agent: Pick<AgentRecord, 'instructions'>,
  skills: MountedSkill[] = [],
  { unattended = true }: { unattended?: boolean } = {},
): string {
  const listed =
    skills.length === 0
      ? ''
      : `Your skills (load one with load_skill before you use it):\n${skills
          .map((skill) => `- ${skill.name}: ${skill.description}`)
          .join('\n')}`;
  return [agent.instructions, unattended ? UNATTENDED : '', listed].filter(Boolean).join('\n\n');
}

/** The thinking level as the provider's reasoning effort; `off` sends none. */
export function reasoningOptions(agent: Pick<AgentRecord, 'provider' | 'thinkingLevel'>) {
  return agent.thinkingLevel === 'off'
    ? {}
    : { [LanguageModels.optionsKey(agent.provider)]: { reasoningEffort: agent.thinkingLevel } };
}

/** What went wrong with the model, in words a workflow's author can act on. */
export function explainModelFailure(error: unknown, timeoutMs: number): DomainException {
  const cause = RetryError.isInstance(error) ? error.lastError : error;
  if (APICallError.isInstance(cause) && cause.statusCode !== undefined && cause.statusCode < 300) {
    return new DomainException(
      'service_unavailable',
      'The model provider answered something that is not a chat completion.',
    );
  }
  if (APICallError.isInstance(cause)) {
    return new DomainException(
      'service_unavailable',
      cause.statusCode === undefined
        ? `The model provider could not be reached at ${cause.url}: ${cause.message}`
        : `The model provider refused the call (${cause.statusCode}): ${cause.message}`,
    );
  }
  if (
    JSONParseError.isInstance(cause) ||
    TypeValidationError.isInstance(cause) ||
    InvalidResponseDataError.isInstance(cause)
  ) {
    return new DomainException(
      'service_unavailable',
      'The model provider answered something that is not a chat completion.',
    );
  }
  const name = (cause as { name?: string } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new DomainException('service_unavailable', `The model did not answer within ${timeoutMs} ms.`);
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return new DomainException('service_unavailable', `The model call failed: ${message}`);
}

/**
 * What a step that is done or waiting shows: its answer so far, thread, tool lines, approvals, and the
 * tokens of its model calls so far.
 */
export function outputOf(
  response: string,
  threadId: string,
  messages: readonly ModelMessage[],
  approvals: readonly ApprovalRecord[],
  usage: StepUsage,
): AgentStepOutput {
  return {
    response,
    thread: threadId,
    tools: toolLines(messages),
    approvals: JSON.stringify(approvals.map(toStepApproval)),
    usage: JSON.stringify(usage),
  };
}

/** The text of the conversation's last assistant message. */
export function lastAnswer(messages: readonly ModelMessage[]): string {
  const last = messages.findLast((message) => message.role === 'assistant');
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return last.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** The tool calls the conversation has results for. */
export function answeredCalls(messages: readonly ModelMessage[]): Set<string> {
  return new Set(
    messages.flatMap((message) =>
      message.role === 'tool'
        ? message.content.flatMap((part) => (part.type === 'tool-result' ? [part.toolCallId] : []))
        : [],
    ),
  );
}
