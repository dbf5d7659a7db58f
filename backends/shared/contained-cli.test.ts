import { describe, expect, it } from 'vitest';
import type { AgentResult } from '../../src/core/ports/index.js';
import { finishContainedResult, type ContainedOutcome } from './contained-cli.js';

const usage = { inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 };
const outcome = (providerError: ContainedOutcome['providerError']): ContainedOutcome => ({
  ok: true, contained: true, exit: { exitCode: null, signal: 'SIGTERM', stdout: '', stderr: '', timedOut: false } as unknown as ContainedOutcome['exit'],
  usage, providerError, notes: [], scrubbed: [], turnLimitReached: false,
});
const failed = (reason: 'max-turns' | 'budget' | 'error', message: string): AgentResult => ({ ok: false, reason, message, retryable: false, usage: { ...usage, costUsd: null } } as AgentResult);
const reset = { status: 0, code: 'ECONNRESET', message: 'socket hang up', endpoint: 'https://models.example/v1' };
const refused = { status: 0, code: 'ECONNREFUSED', message: 'connect ECONNREFUSED', endpoint: 'https://models.example/v1' };

describe('finishContainedResult', () => {
  it('a call cut short by a stop loop-runtime decided keeps the stop as the reason (max turns, budget)', () => {
    expect(finishContainedResult(failed('max-turns', 'stopped at 2 turns'), outcome(reset))).toMatchObject({ ok: false, reason: 'max-turns', message: 'stopped at 2 turns' });
    expect(finishContainedResult(failed('budget', 'stopped at the reservation'), outcome(reset))).toMatchObject({ ok: false, reason: 'budget' });
  });

  it('the twin: a CLI failure whose endpoint never answered says that, naming the configured URL', () => {
    const result = finishContainedResult(failed('error', 'opencode failed; see detail'), outcome(refused));
    expect(result).toMatchObject({ ok: false, reason: 'error', retryable: false });
    expect(result.ok === false && result.message).toMatch(/^Could not reach https:\/\/models\.example\/v1 \(connect ECONNREFUSED\)\. To fix: check the URL/);
  });
});
