import { DomainException } from '#common';
import type { AgentProvider } from '#contracts';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { LRUCache } from 'lru-cache';

import type { AgentConfig } from '../agent.config.js';

/**
 * The two providers of DESIGN.md §5, both OpenAI-compatible endpoints: an AI gateway, and a model
 * server next to the platform (Ollama, vLLM). An agent's empty `model` runs the provider's default.
 */
export class LanguageModels {
  /** Clients by provider and model, made on first use; agents name the models, so the cache is bounded. */
  private readonly models = new LRUCache<string, LanguageModel>({ max: 100 });

  constructor(private readonly config: AgentConfig) {}

  /** The provider's name in `providerOptions` (where the reasoning effort goes). */
  static optionsKey(provider: AgentProvider): string {
    return provider === 'gateway' ? 'gateway' : 'platformAi';
  }

  modelFor(provider: AgentProvider, model: string): LanguageModel {
    const { url, apiKey, defaultModel, variables } =
      provider === 'gateway'
        ? {
            url: this.config.AI_GATEWAY_URL,
            apiKey: this.config.AI_GATEWAY_API_KEY,
            defaultModel: this.config.AI_GATEWAY_DEFAULT_MODEL,
            variables: 'AI_GATEWAY_URL and AI_GATEWAY_DEFAULT_MODEL',
          }
        : {
            url: this.config.PLATFORM_AI_URL,
            apiKey: undefined,
            defaultModel: this.config.PLATFORM_AI_DEFAULT_MODEL,
            variables: 'PLATFORM_AI_URL and PLATFORM_AI_DEFAULT_MODEL',
          };
    const modelId = model || defaultModel;
    if (!url || !modelId) {
      throw new DomainException(
        'service_unavailable',
        `The ${provider} provider is not configured: set ${variables}${model ? '' : ', or give the agent a model'}.`,
      );
    }
    const key = `${provider}\u0000${modelId}`;
    let languageModel = this.models.get(key);
    if (!languageModel) {
      languageModel = createOpenAICompatible({
        name: LanguageModels.optionsKey(provider),
        baseURL: url,
        ...(apiKey ? { apiKey } : {}),
        // Streamed answers (chat) report their tokens only when asked to (`stream_options`).
        includeUsage: true,
      }).chatModel(modelId);
      this.models.set(key, languageModel);
    }
    return languageModel;
  }
}
