/**
 * Retrying model calls. Rate limits (429), server errors (5xx), "overloaded"
 * (529) and dropped connections are retried with exponential backoff and full
 * jitter, honouring `retry-after`. Quota exhaustion and authentication
 * failures are never retried: waiting does not fix them, and a loop that
 * retries a dead key for hours burns its whole schedule.
 */
import type { BackendFailureReason } from '../../src/core/ports/index.js';

/** A model call that failed at the HTTP/transport level, in one shape for every provider. */
export class ModelCallError extends Error {
  readonly status: number | undefined;
  readonly code: string | undefined;
  readonly type: string | undefined;
  readonly retryAfterMs: number | undefined;
  constructor(message: string, options: { status?: number; code?: string; type?: string; retryAfterMs?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'ModelCallError';
    this.status = options.status;
    this.code = options.code;
    this.type = options.type;
    this.retryAfterMs = options.retryAfterMs;
  }
}

export type ErrorClass =
  | { kind: 'retry'; reason: 'rate-limited' | 'error'; retryAfterMs?: number }
  | { kind: 'stop'; reason: BackendFailureReason; retryable: boolean };

const QUOTA_MARKERS = /insufficient_quota|quota|billing|credit balance|exceeded your current/i;

/** Sorts a failed call into retry-now or stop-with-reason. */
export function classifyModelError(error: unknown): ErrorClass {
  if (error instanceof ModelCallError) {
    const marker = `${error.code ?? ''} ${error.type ?? ''}`;
    if (QUOTA_MARKERS.test(marker) || error.status === 402) return { kind: 'stop', reason: 'quota-exhausted', retryable: false };
    if (error.status === 401 || error.status === 403 || /authentication|permission_error|invalid_api_key/i.test(marker)) {
      return { kind: 'stop', reason: 'auth', retryable: false };
    }
    if (error.status === 429 || /rate_limit/i.test(marker)) {
      return { kind: 'retry', reason: 'rate-limited', ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}) };
    }
    if (error.status === undefined || error.status === 408 || error.status === 409 || error.status >= 500 || /overloaded/i.test(marker)) {
      return { kind: 'retry', reason: 'error', ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}) };
    }
    return { kind: 'stop', reason: 'error', retryable: false };
  }
  return { kind: 'stop', reason: 'error', retryable: false };
}

/** Parses `retry-after-ms` / `retry-after` (seconds or HTTP date) headers. */
export function parseRetryAfter(get: (name: string) => string | null | undefined, now: number = Date.now()): number | undefined {
  const milliseconds = Number(get('retry-after-ms'));
  if (get('retry-after-ms') && Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export interface RetryOptions {
  /** Total attempts including the first. Default 4. */
  maxAttempts?: number;
  /** First backoff in ms. Default 1000. */
  baseDelayMs?: number;
  /** Backoff ceiling in ms (retry-after is capped by this too). Default 60000. */
  maxDelayMs?: number;
  /** Injected so tests never wait. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Injected randomness in [0, 1). */
  random?: () => number;
  signal?: AbortSignal;
  /** Told about every retry (for transcripts). */
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
}

export type RetryOutcome<T> =
  | { ok: true; value: T; attempts: number }
  | { ok: false; reason: BackendFailureReason; retryable: boolean; error: unknown; attempts: number };

/**
 * Runs `call`, retrying transient failures with backoff and full jitter.
 *
 * @example
 * ```ts
 * const outcome = await withRetry(() => model.call(request), { sleep: (ms) => new Promise((r) => setTimeout(r, ms)) });
 * if (!outcome.ok && outcome.reason === 'quota-exhausted') stopTheLoop();
 * ```
 */
export async function withRetry<T>(call: (attempt: number) => Promise<T>, options: RetryOptions): Promise<RetryOutcome<T>> {
  const maxAttempts = options.maxAttempts ?? 4;
  const base = options.baseDelayMs ?? 1000;
  const cap = options.maxDelayMs ?? 60_000;
  const random = options.random ?? Math.random;
  for (let attempt = 1; ; attempt++) {
    try {
      return { ok: true, value: await call(attempt), attempts: attempt };
    } catch (error) {
      if (options.signal?.aborted) return { ok: false, reason: 'aborted', retryable: false, error, attempts: attempt };
      const verdict = classifyModelError(error);
      if (verdict.kind === 'stop') return { ok: false, reason: verdict.reason, retryable: verdict.retryable, error, attempts: attempt };
      if (attempt >= maxAttempts) return { ok: false, reason: verdict.reason, retryable: true, error, attempts: attempt };
      const backoff = Math.min(cap, base * 2 ** (attempt - 1));
      const jittered = Math.floor(random() * backoff);
      const delayMs = Math.min(cap, Math.max(jittered, verdict.retryAfterMs ?? 0));
      options.onRetry?.({ attempt, delayMs, error });
      await options.sleep(delayMs, options.signal);
    }
  }
}

/** A real sleep that ends early when the signal aborts. */
export function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * How a failed attempt failed, in the words of the progress line: `HTTP 503`, `refused (ECONNREFUSED)`, `ETIMEDOUT`.
 *
 * @example
 * ```ts
 * attemptFailure(new ModelCallError('overloaded', { status: 529 })); // → 'HTTP 529'
 * ```
 */
export function attemptFailure(error: unknown): string {
  if (error instanceof ModelCallError && error.status !== undefined) return `HTTP ${error.status}`;
  const text = error instanceof Error ? `${error.message} ${error.cause instanceof Error ? error.cause.message : ''}` : String(error);
  const code = /\b(E[A-Z]{3,}[A-Z_]*)\b/.exec(text)?.[1];
  if (code === 'ECONNREFUSED') return 'refused (ECONNREFUSED)';
  return code ?? 'failed';
}
