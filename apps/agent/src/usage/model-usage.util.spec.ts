import type { LanguageModelUsage, ModelMessage } from 'ai';
import { register } from 'prom-client';

import { countModelCall } from './model.metrics.js';
import { messagesWithUsage, stepUsageOf, tokenUsageOf } from './model-usage.util.js';

const call = (model: string, inputTokens: number, outputTokens: number) => ({
  provider: 'gateway',
  model,
  inputTokens,
  outputTokens,
  reasoningTokens: 0,
  cachedInputTokens: 0,
});

describe('model usage', () => {
  it('reads the AI SDK’s usage of a call, counting 0 for what the provider did not tell', () => {
    const usage = {
      inputTokens: 120,
      inputTokenDetails: { noCacheTokens: 20, cacheReadTokens: 100, cacheWriteTokens: undefined },
      outputTokens: 40,
      outputTokenDetails: { textTokens: 10, reasoningTokens: 30 },
      totalTokens: 160,
    } satisfies LanguageModelUsage;
    expect(tokenUsageOf(usage)).toEqual({
      inputTokens: 120,
      outputTokens: 40,
      reasoningTokens: 30,
      cachedInputTokens: 100,
    });
    expect(tokenUsageOf(undefined)).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      reasoningTokens: 0,
      cachedInputTokens: 0,
    });
  });

  it('gives each assistant message the usage of the model call that produced it', () => {
    const first: ModelMessage = { role: 'assistant', content: [{ type: 'text', text: 'calling' }] };
    const result: ModelMessage = { role: 'tool', content: [] };
    const second: ModelMessage = { role: 'assistant', content: 'done' };
    const calls = [call('m', 10, 5), call('m', 30, 7)];
    const messages = messagesWithUsage(
      [{ response: { messages: [first, result] } }, { response: { messages: [first, result, second] } }],
      calls,
    );
    expect(messages).toEqual([{ ...first, usage: calls[0] }, result, { ...second, usage: calls[1] }]);
    expect(stepUsageOf(calls)).toEqual({
      calls,
      total: { inputTokens: 40, outputTokens: 12, reasoningTokens: 0, cachedInputTokens: 0 },
    });
  });

  it('counts calls and tokens on the default registry, by provider, model and type or outcome', async () => {
    countModelCall('gateway', 'unit-model', 'ok', {
      inputTokens: 100,
      outputTokens: 20,
      reasoningTokens: 5,
      cachedInputTokens: 60,
    });
    countModelCall('gateway', 'unit-model', 'ok', {
      inputTokens: 1,
      outputTokens: 2,
      reasoningTokens: 0,
      cachedInputTokens: 0,
    });
    countModelCall('gateway', 'unit-model', 'error');
    const text = await register.metrics();
    const value = (line: string) => Number(text.match(new RegExp(`^${line} (\\S+)$`, 'm'))?.[1]);
    const labels = 'provider="gateway",model="unit-model"';
    expect({
      input: value(`flowmesh_model_tokens_total\\{${labels},type="input"\\}`),
      output: value(`flowmesh_model_tokens_total\\{${labels},type="output"\\}`),
      reasoning: value(`flowmesh_model_tokens_total\\{${labels},type="reasoning"\\}`),
      cached: value(`flowmesh_model_tokens_total\\{${labels},type="cached"\\}`),
      ok: value(`flowmesh_model_calls_total\\{${labels},outcome="ok"\\}`),
      error: value(`flowmesh_model_calls_total\\{${labels},outcome="error"\\}`),
    }).toEqual({ input: 101, output: 22, reasoning: 5, cached: 60, ok: 2, error: 1 });
    expect(text).toMatch(/^# TYPE flowmesh_model_tokens_total counter$/m);
    expect(text).toMatch(/^# TYPE flowmesh_model_calls_total counter$/m);
  });
});
