import { loadConfig } from '#common';

import { AgentConfig } from '../agent.config.js';
import { costOf, parseModelPrices, sumCosts } from './model-prices.util.js';

const tokens = (inputTokens: number, outputTokens: number, reasoningTokens = 0, cachedInputTokens = 0) => ({
  inputTokens,
  outputTokens,
  reasoningTokens,
  cachedInputTokens,
});

describe('model prices', () => {
  it('reads a price table, and an empty one when unset', () => {
    expect(parseModelPrices(undefined)).toEqual({ prices: new Map() });
    expect(parseModelPrices('  ')).toEqual({ prices: new Map() });
    expect(
      parseModelPrices('{"gateway/gpt-4o-mini": {"input": 0.15, "output": 0.6, "cached": 0.075}}'),
    ).toEqual({ prices: new Map([['gateway/gpt-4o-mini', { input: 0.15, output: 0.6, cached: 0.075 }]]) });
  });

  it('lists every problem of a table that is wrong', () => {
    expect(parseModelPrices('{oops')).toEqual({ problems: [expect.stringMatching(/^not JSON/)] });
    expect(parseModelPrices('[1]')).toEqual({ problems: [expect.stringMatching(/JSON object/)] });
    const parsed = parseModelPrices(
      JSON.stringify({
        'openai/gpt-4o': { input: 1, output: 2 },
        'gateway/a': { input: -1, output: '2', reasoning: 3, extra: 1 },
        'platform-ai/b': 5,
      }),
    );
    expect(parsed).toEqual({
      problems: [
        'openai/gpt-4o: the key must be "gateway/<model>" or "platform-ai/<model>"',
        'gateway/a.extra: unknown; the fields are input, output, reasoning, cached',
        'gateway/a.input: must be a number of USD per million tokens, 0 or more',
        'gateway/a.output: must be a number of USD per million tokens, 0 or more',
        'platform-ai/b: must be an object {input, output, reasoning?, cached?}',
      ],
    });
  });

  it('stops the agent service at boot with the problems of MODEL_PRICES', () => {
    expect(() => loadConfig(AgentConfig, { MODEL_PRICES: '{"gateway/x": {"input": 1}}' })).toThrow(
      /MODEL_PRICES must be .*gateway\/x\.output: must be a number/,
    );
    const config = loadConfig(AgentConfig, { MODEL_PRICES: '{"gateway/x": {"input": 1, "output": 2}}' });
    expect(config.modelPrices.get('gateway/x')).toEqual({ input: 1, output: 2 });
    expect(loadConfig(AgentConfig, {}).modelPrices.size).toBe(0);
  });

  it('prices input, cached input, output and reasoning tokens each at its rate, in USD per million', () => {
    const price = { input: 2, output: 8, reasoning: 10, cached: 0.5 };
    // 1,000,000 input of which 400,000 cached; 100,000 output of which 30,000 reasoning.
    expect(costOf(tokens(1_000_000, 100_000, 30_000, 400_000), price)).toBe(
      0.6 * 2 + 0.4 * 0.5 + 0.07 * 8 + 0.03 * 10,
    );
    // Reasoning and cached tokens cost what output and input do when the table gives no rate.
    expect(costOf(tokens(1_000_000, 1_000_000, 500_000, 500_000), { input: 1, output: 3 })).toBe(4);
    expect(costOf(tokens(15, 5), { input: 0.15, output: 0.6 })).toBe(0.000005);
    expect(costOf(tokens(15, 5), undefined)).toBeNull();
  });

  it('sums costs, and a sum with an unknown cost is unknown', () => {
    expect(sumCosts([0.1, 0.2])).toBe(0.3);
    expect(sumCosts([])).toBe(0);
    expect(sumCosts([0.1, null])).toBeNull();
  });
});
