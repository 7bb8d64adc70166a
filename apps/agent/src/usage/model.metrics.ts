import type { TokenUsage } from '#contracts';
import { Counter } from 'prom-client';

/**
 * The model metrics, defined once for the process on prom-client's default registry (in the
 * all-in-one mode every service shares it). Providers are two and models are the operator's and
 * agents' configuration, so the label sets stay bounded.
 */
export const modelTokens = new Counter({
  name: 'flowmesh_model_tokens_total',
  help: 'Tokens used by agents\u2019 model calls, by provider, model and type (input, output, reasoning, cached).',
  labelNames: ['provider', 'model', 'type'] as const,
});

export const modelCalls = new Counter({
  name: 'flowmesh_model_calls_total',
  help: 'Model calls of Agent steps and chat turns, by provider, model and outcome (ok, error, aborted).',
  labelNames: ['provider', 'model', 'outcome'] as const,
});

export type ModelCallOutcome = 'ok' | 'error' | 'aborted';

/** Counts one model call, and its tokens when it answered. */
export function countModelCall(
  provider: string,
  model: string,
  outcome: ModelCallOutcome,
  usage?: TokenUsage,
): void {
  modelCalls.inc({ provider, model, outcome });
  if (!usage) return;
  // Input includes the cached tokens and output the reasoning ones, as the providers count them.
  modelTokens.inc({ provider, model, type: 'input' }, usage.inputTokens);
  modelTokens.inc({ provider, model, type: 'output' }, usage.outputTokens);
  modelTokens.inc({ provider, model, type: 'reasoning' }, usage.reasoningTokens);
  modelTokens.inc({ provider, model, type: 'cached' }, usage.cachedInputTokens);
}
