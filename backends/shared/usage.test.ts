import { describe, expect, it } from 'vitest';
import { addUsage, costOf, findPrice, fromAnthropicUsage, fromOllamaUsage, fromOpenAIChatUsage, fromOpenAIResponsesUsage } from './usage.js';

describe('usage normalization', () => {
  it('counts cached tokens once, outside input', () => {
    expect(fromOpenAIChatUsage({ prompt_tokens: 1000, completion_tokens: 50, prompt_tokens_details: { cached_tokens: 400 } })).toEqual({
      inputTokens: 600, outputTokens: 50, cacheReadTokens: 400, cacheWriteTokens: 0,
    });
    expect(fromOpenAIResponsesUsage({ input_tokens: 300, output_tokens: 7, input_tokens_details: { cached_tokens: 100 } })).toMatchObject({ inputTokens: 200, cacheReadTokens: 100 });
    expect(fromAnthropicUsage({ input_tokens: 10, output_tokens: 3, cache_read_input_tokens: 500, cache_creation_input_tokens: 70 })).toEqual({
      inputTokens: 10, outputTokens: 3, cacheReadTokens: 500, cacheWriteTokens: 70,
    });
    expect(fromOllamaUsage({ prompt_eval_count: 12, eval_count: 4 })).toEqual({ inputTokens: 12, outputTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(fromOpenAIChatUsage(null)).toEqual({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });
});

describe('prices', () => {
  it('prefers the longest matching key and user overrides', () => {
    expect(findPrice('gpt-4o-mini-2024-07-18')?.input).toBe(0.15);
    expect(findPrice('gpt-4o-2024-08-06')?.input).toBe(2.5);
    expect(findPrice('gpt-4o-mini', { 'gpt-4o-mini': { input: 1, output: 2 } })?.input).toBe(1);
    expect(findPrice('my-local-model')).toBeNull();
  });

  it('prices every kind of token and adds usages', () => {
    const usage = { inputTokens: 1_000_000, outputTokens: 1_000_000, cacheReadTokens: 1_000_000, cacheWriteTokens: 1_000_000 };
    expect(costOf(usage, { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 })).toBe(22.05);
    expect(costOf(usage, null)).toBeNull();
    const zero = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    expect(addUsage({ ...zero, costUsd: null }, { ...zero, inputTokens: 5, costUsd: 0.1 })).toEqual({ ...zero, inputTokens: 5, costUsd: 0.1 });
    expect(addUsage({ ...zero, costUsd: null }, { ...zero, costUsd: null }).costUsd).toBeNull();
  });
});
