import {
  APICallError,
  InvalidToolInputError,
  type LanguageModel,
  NoSuchToolError,
  RetryError,
  type ToolSet,
} from 'ai';

import type { UiMessageChunk } from '#contracts';

import { explainModelFailure } from '../steps/agent-step.util.js';

/** How much of the first message names a chat's thread. */
export const CHAT_TITLE_MAX_LENGTH = 60;

/** A new chat's thread is titled after the member's first message, on one line. */
export function chatTitleOf(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= CHAT_TITLE_MAX_LENGTH) return line;
  const cut = line.slice(0, CHAT_TITLE_MAX_LENGTH - 1);
  // Cut at a word when one ends in the last third, so the title does not stop mid-word.
  const space = cut.lastIndexOf(' ');
  return `${space > (CHAT_TITLE_MAX_LENGTH * 2) / 3 ? cut.slice(0, space) : cut}…`;
}

/**
 * The tools without those that wait for approval: a chat turn cannot be suspended for days while
 * someone decides, so chat never offers an ask-first action (AgentTools leaves them out today; this
 * keeps chat so if Agent steps start offering them).
 */
export function withoutAskFirst(tools: ToolSet): ToolSet {
  return Object.fromEntries(Object.entries(tools).filter(([, tool]) => !tool.needsApproval));
}

/** The error and what it wraps: retries' last error, and each `cause` down the chain. */
function chainOf(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let link = error; link !== undefined && link !== null && chain.length < 10;) {
    chain.push(link);
    link = RetryError.isInstance(link) ? link.lastError : (link as { cause?: unknown }).cause;
  }
  return chain;
}

const nameOf = (error: unknown) => (error as { name?: unknown } | null)?.name;

/**
 * What stopped a streamed answer, in words a member can act on. Streaming adds two failures to those
 * of one model call: a time limit that struck while the answer was arriving, and a provider that broke
 * off half-way through it.
 */
export function explainChatFailure(error: unknown, limits: { stepMs: number; turnMs: number }): string {
  const chain = chainOf(error);
  const timeout = chain.find((link) => nameOf(link) === 'TimeoutError');
  if (timeout !== undefined) return timeoutMessage(messageOf(timeout), limits);
  const [first] = chain;
  if (
    APICallError.isInstance(first) &&
    first.statusCode !== undefined &&
    first.statusCode < 300 &&
    chain.some((link) => nameOf(link) === 'TypeError')
  ) {
    return 'The model provider broke off its answer half-way. Send the message again.';
  }
  return explainModelFailure(error, limits.stepMs).message;
}

/** The limit an aborted answer ran into, from the reason the AI SDK gives (`Step timeout of … exceeded`). */
export function timeoutMessage(
  reason: string | undefined,
  { stepMs, turnMs }: { stepMs: number; turnMs: number },
) {
  return reason !== undefined && /^(step|chunk) timeout/i.test(reason)
    ? `The model did not answer within ${stepMs} ms.`
    : `The answer took longer than ${Math.round(turnMs / 1000)} s and was stopped.`;
}

/** Duck-typed: a DOMException from another realm is not `instanceof Error`. */
export function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}

export const modelIdOf = (model: LanguageModel): string =>
  typeof model === 'string' ? model : model.modelId;

/** A tool that failed, or a tool call the model got wrong: the model is told and carries on. */
export function isToolFailure(error: unknown, toolFailures: WeakSet<object>): boolean {
  return (
    (typeof error === 'object' && error !== null && toolFailures.has(error)) ||
    NoSuchToolError.isInstance(error) ||
    InvalidToolInputError.isInstance(error)
  );
}

/**
 * Passes a turn's UI message chunks on, with the time limits' aborts and a failure while the answer
 * arrives turned into `error` chunks; an abort the member caused (`signal`: they left) adds nothing.
 */
export async function* relayTurn(
  stream: AsyncIterable<UiMessageChunk & { reason?: string }>,
  signal: AbortSignal,
  limits: { stepMs: number; turnMs: number },
): AsyncGenerator<UiMessageChunk> {
  try {
    for await (const chunk of stream) {
      if (chunk.type === 'abort' && !signal.aborted) {
        // Only the time limits abort a turn the member did not leave.
        yield { type: 'error', errorText: timeoutMessage(chunk.reason, limits) };
        continue;
      }
      yield chunk;
    }
  } catch (error) {
    // A failure while the answer arrives ends the stream rather than becoming a chunk of it.
    if (!signal.aborted) yield { type: 'error', errorText: explainChatFailure(error, limits) };
  }
}
