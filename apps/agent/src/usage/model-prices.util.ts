import type { TokenUsage } from '#contracts';

/**
 * A model's prices in USD per million tokens. `reasoning` defaults to `output` and `cached` to
 * `input`, as most providers bill them.
 */
export interface ModelPrice {
  input: number;
  output: number;
  reasoning?: number;
  cached?: number;
}

/** Prices by `<provider>/<model>`, e.g. `gateway/gpt-4o-mini`. */
export type ModelPrices = ReadonlyMap<string, ModelPrice>;

const PRICE_FIELDS = ['input', 'output', 'reasoning', 'cached'] as const;

/**
 * Reads `MODEL_PRICES`: `{"<provider>/<model>": {"input": 0.15, "output": 0.6, "reasoning"?: …,
 * "cached"?: …}}`. Answers the table, or every problem found, each naming where it is.
 */
export function parseModelPrices(text: string | undefined): { prices: ModelPrices } | { problems: string[] } {
  if (text === undefined || text.trim() === '') return { prices: new Map() };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { problems: [`not JSON: ${(error as Error).message}`] };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { problems: ['must be a JSON object of "<provider>/<model>" to prices'] };
  }
  const problems: string[] = [];
  const prices = new Map<string, ModelPrice>();
  for (const [key, value] of Object.entries(parsed)) {
    if (!/^(gateway|platform-ai)\/.+$/.test(key)) {
      problems.push(`${key}: the key must be "gateway/<model>" or "platform-ai/<model>"`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      problems.push(`${key}: must be an object {input, output, reasoning?, cached?}`);
      continue;
    }
    const price = value as Record<string, unknown>;
    for (const field of Object.keys(price)) {
      if (!(PRICE_FIELDS as readonly string[]).includes(field)) {
        problems.push(`${key}.${field}: unknown; the fields are ${PRICE_FIELDS.join(', ')}`);
      }
    }
    for (const field of PRICE_FIELDS) {
      const amount = price[field];
      const required = field === 'input' || field === 'output';
      if (amount === undefined && !required) continue;
      if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0) {
        problems.push(`${key}.${field}: must be a number of USD per million tokens, 0 or more`);
      }
    }
    prices.set(key, price as unknown as ModelPrice);
  }
  return problems.length > 0 ? { problems } : { prices };
}

export const priceKey = (provider: string, model: string): string => `${provider}/${model}`;

/**
 * The estimated cost in USD of some tokens at a price; null without a price. Cached input tokens are
 * billed at `cached` and the rest of the input at `input`; reasoning tokens at `reasoning` and the rest
 * of the output at `output`. Rounded to a millionth of a dollar.
 */
export function costOf(usage: TokenUsage, price: ModelPrice | undefined): number | null {
  if (!price) return null;
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const reasoning = Math.min(usage.reasoningTokens, usage.outputTokens);
  const micro =
    (usage.inputTokens - cached) * price.input +
    cached * (price.cached ?? price.input) +
    (usage.outputTokens - reasoning) * price.output +
    reasoning * (price.reasoning ?? price.output);
  return roundCost(micro / 1_000_000);
}

export const roundCost = (usd: number): number => Math.round(usd * 1_000_000) / 1_000_000;

/** The sum of some estimated costs: null when any of them is unknown, so a total never hides spend. */
export function sumCosts(costs: readonly (number | null)[]): number | null {
  let sum = 0;
  for (const cost of costs) {
    if (cost === null) return null;
    sum += cost;
  }
  return roundCost(sum);
}
