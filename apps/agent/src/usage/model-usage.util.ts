import type { ModelCallUsage, StepUsage, TokenUsage } from '#contracts';
import { sumUsage } from '#contracts';
import type { LanguageModelUsage, ModelMessage } from 'ai';

/** A message to keep in a thread, with the tokens of the model call that produced it (assistant). */
export type StoredMessage = ModelMessage & { usage?: ModelCallUsage };

/** The AI SDK's usage of one call as the four counts we keep; a provider that tells none counts 0. */
export function tokenUsageOf(usage: LanguageModelUsage | undefined): TokenUsage {
  return {
    inputTokens: usage?.inputTokens ?? 0,
    outputTokens: usage?.outputTokens ?? 0,
    reasoningTokens: usage?.outputTokenDetails?.reasoningTokens ?? usage?.reasoningTokens ?? 0,
    cachedInputTokens: usage?.inputTokenDetails?.cacheReadTokens ?? usage?.cachedInputTokens ?? 0,
  };
}

/**
 * The messages of an answer, each assistant message with the usage of the model call (the SDK's
 * step) that produced it. Each step's `response.messages` holds the steps before it too.
 */
export function messagesWithUsage(
  steps: readonly { response: { messages: readonly ModelMessage[] } }[],
  calls: readonly ModelCallUsage[],
): StoredMessage[] {
  const messages: StoredMessage[] = [];
  steps.forEach((step, index) => {
    const call = calls[index];
    for (const message of step.response.messages.slice(messages.length)) {
      messages.push(message.role === 'assistant' && call ? { ...message, usage: call } : message);
    }
  });
  return messages;
}

/** What the `usage` output field of an Agent step holds: each model call, and their sum. */
export const stepUsageOf = (calls: readonly ModelCallUsage[]): StepUsage => ({
  calls: [...calls],
  total: sumUsage(calls),
});
