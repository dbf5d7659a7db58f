/**
 * Usage normalization across providers and cost from a price table the user
 * can override. Normalized `inputTokens` never includes cached tokens: each
 * token is counted exactly once in input, output, cacheRead or cacheWrite.
 */
import type { Usage } from '../../src/core/ports/index.js';

// The table's shape, its date and the key lookup live in the core, so `status` prices without loading a backend.
import { lookUpPrice, type ModelPrice, type PriceTable } from '../../src/core/budget/price-table.js';

export { DEFAULT_PRICES_AS_OF, type ModelPrice, type PriceTable } from '../../src/core/budget/price-table.js';

/**
 * Built-in list prices in USD per million tokens, as published by the providers
 * when this table was written. Override per backend with `prices` — a user
 * entry replaces the built-in one for the same key.
 */
export const DEFAULT_PRICES: PriceTable = {
  'gpt-4o*': { input: 2.5, output: 10, cacheRead: 1.25 },
  'gpt-4o-mini*': { input: 0.15, output: 0.6, cacheRead: 0.075 },
  'gpt-4.1*': { input: 2, output: 8, cacheRead: 0.5 },
  'gpt-4.1-mini*': { input: 0.4, output: 1.6, cacheRead: 0.1 },
  'gpt-4.1-nano*': { input: 0.1, output: 0.4, cacheRead: 0.025 },
  'o4-mini*': { input: 1.1, output: 4.4, cacheRead: 0.275 },
  'claude-sonnet-4*': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-haiku-4*': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  'claude-opus-4*': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  // The models an opencode loop with no model: runs (src/adapters/agents/opencode-model.ts), priced as opencode's bundled
  // list has them (gpt-6-sol's standard tier; past 272,000 tokens of context it costs 4 / 15).
  'claude-sonnet-5*': { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 },
  'gpt-6-sol*': { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 },
};

/** Looks a model up in `overrides` first, then in the defaults. */
export function findPrice(model: string, overrides: PriceTable = {}, defaults: PriceTable = DEFAULT_PRICES): ModelPrice | null {
  return lookUpPrice(model, overrides) ?? lookUpPrice(model, defaults);
}

/** Cost in USD of the tokens in `usage` at `price`; null without a price. */
export function costOf(usage: Omit<Usage, 'costUsd'>, price: ModelPrice | null): number | null {
  if (!price) return null;
  const perToken = (perMillion: number) => perMillion / 1_000_000;
  const cost =
    usage.inputTokens * perToken(price.input) +
    usage.outputTokens * perToken(price.output) +
    usage.cacheReadTokens * perToken(price.cacheRead ?? price.input) +
    usage.cacheWriteTokens * perToken(price.cacheWrite ?? price.input);
  return Math.round(cost * 1e8) / 1e8;
}

/** Adds two usages; cost stays null only when both are null. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    costUsd: a.costUsd === null && b.costUsd === null ? null : Math.round(((a.costUsd ?? 0) + (b.costUsd ?? 0)) * 1e8) / 1e8,
  };
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);

/** OpenAI Chat Completions `usage` (prompt_tokens includes cached tokens). */
export function fromOpenAIChatUsage(raw: unknown): Omit<Usage, 'costUsd'> {
  const usage = (raw ?? {}) as { prompt_tokens?: number; completion_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } };
  const cached = count(usage.prompt_tokens_details?.cached_tokens);
  return {
    inputTokens: Math.max(0, count(usage.prompt_tokens) - cached),
    outputTokens: count(usage.completion_tokens),
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
}

/** OpenAI Responses API `usage` (input_tokens includes cached tokens). */
export function fromOpenAIResponsesUsage(raw: unknown): Omit<Usage, 'costUsd'> {
  const usage = (raw ?? {}) as { input_tokens?: number; output_tokens?: number; input_tokens_details?: { cached_tokens?: number } };
  const cached = count(usage.input_tokens_details?.cached_tokens);
  return {
    inputTokens: Math.max(0, count(usage.input_tokens) - cached),
    outputTokens: count(usage.output_tokens),
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
}

/** Anthropic Messages `usage` (input_tokens already excludes cache reads and writes). */
export function fromAnthropicUsage(raw: unknown): Omit<Usage, 'costUsd'> {
  const usage = (raw ?? {}) as {
    input_tokens?: number;
    output_tokens?: number;
    cache_read_input_tokens?: number;
    cache_creation_input_tokens?: number;
  };
  return {
    inputTokens: count(usage.input_tokens),
    outputTokens: count(usage.output_tokens),
    cacheReadTokens: count(usage.cache_read_input_tokens),
    cacheWriteTokens: count(usage.cache_creation_input_tokens),
  };
}

/** Ollama `/api/chat` final chunk counters. */
export function fromOllamaUsage(raw: unknown): Omit<Usage, 'costUsd'> {
  const usage = (raw ?? {}) as { prompt_eval_count?: number; eval_count?: number };
  return { inputTokens: count(usage.prompt_eval_count), outputTokens: count(usage.eval_count), cacheReadTokens: 0, cacheWriteTokens: 0 };
}
