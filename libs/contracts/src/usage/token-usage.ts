/** A monthly token budget at most: far beyond any organization, and exact as a JSON number. */
export const TOKEN_BUDGET_MAX = 1_000_000_000_000;

/**
 * Tokens as the providers count them: `inputTokens` includes the cached ones (`cachedInputTokens`),
 * `outputTokens` includes the reasoning ones (`reasoningTokens`). A model call's tokens against a
 * budget are `inputTokens + outputTokens`.
 */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  cachedInputTokens: number;
}

/** The four kinds of token, as the metric `flowmesh_model_tokens_total` labels them. */
export const TOKEN_TYPES = ['input', 'output', 'reasoning', 'cached'] as const;
export type TokenType = (typeof TOKEN_TYPES)[number];

/** One model call of an Agent step or a chat turn. */
export interface ModelCallUsage extends TokenUsage {
  provider: string;
  model: string;
}

/** What an Agent step's `usage` output field holds (as JSON text): each model call, and their sum. */
export interface StepUsage {
  calls: ModelCallUsage[];
  total: TokenUsage;
}

export const NO_TOKENS: TokenUsage = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
  cachedInputTokens: 0,
});

/** The sum of some usages. */
export function sumUsage(usages: readonly TokenUsage[]): TokenUsage {
  return usages.reduce<TokenUsage>(
    (sum, usage) => ({
      inputTokens: sum.inputTokens + usage.inputTokens,
      outputTokens: sum.outputTokens + usage.outputTokens,
      reasoningTokens: sum.reasoningTokens + usage.reasoningTokens,
      cachedInputTokens: sum.cachedInputTokens + usage.cachedInputTokens,
    }),
    { ...NO_TOKENS },
  );
}

/** Tokens counted against a budget: input and output (cached and reasoning tokens are part of them). */
export const budgetTokensOf = (usage: TokenUsage): number => usage.inputTokens + usage.outputTokens;
