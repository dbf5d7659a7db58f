import { describe, expect, it } from 'vitest';
import { mapClaudeResult, type ClaudeRunFacts } from './map-result.js';
import { ResultEventSchema } from './stream-events.js';

const zero = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
// Shapes copied from real `claude -p --output-format stream-json` runs (2.1.x).
const success = ResultEventSchema.parse({
  type: 'result', subtype: 'success', is_error: false, api_error_status: null, num_turns: 4, result: '## Verdict: APPROVE\n- ok',
  total_cost_usd: 0.0005, usage: { input_tokens: 40, cache_creation_input_tokens: 5, cache_read_input_tokens: 100, output_tokens: 12 },
  permission_denials: [], terminal_reason: 'completed',
});
const facts = (overrides: Partial<ClaudeRunFacts>): ClaudeRunFacts => ({
  role: 'check', result: success, exitCode: 0, signal: null, streamedUsage: zero, stderrTail: '', maxTokens: 10_000, ...overrides,
});

describe('mapClaudeResult', () => {
  it('maps a success with usage including cache tokens and the CLI cost', () => {
    expect(mapClaudeResult(facts({}))).toMatchObject({
      ok: true,
      output: { verdict: 'APPROVE', reasons: ['ok'] },
      usage: { inputTokens: 40, outputTokens: 12, cacheReadTokens: 100, cacheWriteTokens: 5, costUsd: 0.0005 },
    });
  });

  it('uses a price override instead of the CLI cost', () => {
    const result = mapClaudeResult(facts({ model: 'claude-x', prices: { 'claude-x': { input: 1_000_000, output: 0, cacheRead: 0, cacheWrite: 0 } } }));
    expect(result.usage.costUsd).toBe(40);
  });

  it('treats is_error with subtype success as a failure, classified by status', () => {
    const apiError = (status: number | null, text: string) =>
      ResultEventSchema.parse({ ...success, is_error: true, api_error_status: status, result: text, total_cost_usd: 0 });
    expect(mapClaudeResult(facts({ result: apiError(529, 'API Error: 529 Overloaded'), exitCode: 1 }))).toMatchObject({ ok: false, reason: 'error', retryable: true });
    expect(mapClaudeResult(facts({ result: apiError(429, 'rate'), exitCode: 1 }))).toMatchObject({ reason: 'rate-limited', retryable: true });
    expect(mapClaudeResult(facts({ result: apiError(null, 'Not logged in · Please run /login'), exitCode: 1, assistantError: 'authentication_failed' }))).toMatchObject({ reason: 'auth' });
    expect(mapClaudeResult(facts({ result: apiError(400, 'Your credit balance is too low'), exitCode: 1 }))).toMatchObject({ reason: 'quota-exhausted', retryable: false });
    // The status decides over words: an overload whose text mentions authentication or a 401 ms wait is no auth failure.
    expect(mapClaudeResult(facts({ result: apiError(529, 'API Error: 529 Overloaded (authentication ok, waited 1401 ms)'), exitCode: 1 }))).toMatchObject({ reason: 'error', retryable: true });
    expect(mapClaudeResult(facts({ result: null, exitCode: 1, stderrTail: 'request took 1401ms then failed' }))).toMatchObject({ reason: 'error' });
    expect(mapClaudeResult(facts({ result: null, exitCode: 1, stderrTail: 'API Error: 401 {"type":"error"}' }))).toMatchObject({ reason: 'auth' });
  });

  it('maps max turns, our own kills and a missing result', () => {
    const maxTurns = ResultEventSchema.parse({ ...success, subtype: 'error_max_turns', is_error: true, terminal_reason: 'max_turns', result: undefined });
    expect(mapClaudeResult(facts({ result: maxTurns, exitCode: 1 }))).toMatchObject({ ok: false, reason: 'max-turns' });
    const streamed = { ...zero, outputTokens: 12_000 };
    expect(mapClaudeResult(facts({ result: null, killedFor: 'budget', exitCode: 143, streamedUsage: streamed }))).toMatchObject({
      ok: false, reason: 'budget', usage: { outputTokens: 12_000 },
    });
    expect(mapClaudeResult(facts({ result: null, killedFor: 'timeout' }))).toMatchObject({ reason: 'timeout' });
    expect(mapClaudeResult(facts({ result: null, exitCode: 1, stderrTail: 'Error: Invalid API key' }))).toMatchObject({ reason: 'auth' });
  });

  it('rejects triage output that is not the JSON contract', () => {
    const triage = ResultEventSchema.parse({ ...success, result: 'Everything looks fine!' });
    expect(mapClaudeResult(facts({ role: 'triage', result: triage }))).toMatchObject({ ok: false, reason: 'invalid-output' });
  });
});
