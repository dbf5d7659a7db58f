import { describe, expect, it } from 'vitest';
import { ModelCallError, classifyModelError, parseRetryAfter, withRetry } from './retry.js';

describe('classifyModelError', () => {
  it('retries rate limits, 5xx, overload and dropped connections', () => {
    expect(classifyModelError(new ModelCallError('x', { status: 429, code: 'rate_limit_exceeded' }))).toMatchObject({ kind: 'retry', reason: 'rate-limited' });
    expect(classifyModelError(new ModelCallError('x', { status: 529, type: 'overloaded_error' }))).toMatchObject({ kind: 'retry' });
    expect(classifyModelError(new ModelCallError('x', { status: 502 }))).toMatchObject({ kind: 'retry', reason: 'error' });
    expect(classifyModelError(new ModelCallError('ECONNRESET'))).toMatchObject({ kind: 'retry' });
  });

  it('stops on quota and auth', () => {
    expect(classifyModelError(new ModelCallError('x', { status: 429, code: 'insufficient_quota' }))).toEqual({ kind: 'stop', reason: 'quota-exhausted', retryable: false });
    expect(classifyModelError(new ModelCallError('x', { status: 401 }))).toEqual({ kind: 'stop', reason: 'auth', retryable: false });
    expect(classifyModelError(new ModelCallError('x', { status: 400 }))).toEqual({ kind: 'stop', reason: 'error', retryable: false });
    expect(classifyModelError(new Error('bug'))).toMatchObject({ kind: 'stop' });
  });
});

describe('parseRetryAfter', () => {
  const headers = (values: Record<string, string>) => (name: string) => values[name] ?? null;
  it('reads ms, seconds and dates', () => {
    expect(parseRetryAfter(headers({ 'retry-after-ms': '250' }))).toBe(250);
    expect(parseRetryAfter(headers({ 'retry-after': '3' }))).toBe(3000);
    expect(parseRetryAfter(headers({ 'retry-after': 'Thu, 01 Jan 1970 00:00:10 GMT' }), 4000)).toBe(6000);
    expect(parseRetryAfter(headers({}))).toBeUndefined();
  });
});

describe('withRetry', () => {
  it('backs off with full jitter, honours retry-after, and caps attempts', async () => {
    const sleeps: number[] = [];
    let calls = 0;
    const outcome = await withRetry(
      async () => {
        calls++;
        throw new ModelCallError('busy', { status: 503, ...(calls === 2 ? { retryAfterMs: 5000 } : {}) });
      },
      { sleep: async (ms) => void sleeps.push(ms), random: () => 0.5, baseDelayMs: 1000, maxAttempts: 4 },
    );
    expect(outcome).toMatchObject({ ok: false, reason: 'error', retryable: true, attempts: 4 });
    expect(sleeps).toEqual([500, 5000, 2000]);
  });

  it('returns the value once a call succeeds', async () => {
    let calls = 0;
    const outcome = await withRetry(async () => (++calls < 2 ? Promise.reject(new ModelCallError('x', { status: 500 })) : 'ok'), { sleep: async () => {} });
    expect(outcome).toEqual({ ok: true, value: 'ok', attempts: 2 });
  });
});
