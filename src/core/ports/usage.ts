/** Token and cost accounting, normalized across backends. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Cost in USD when the backend or a price table knows it. */
  costUsd: number | null;
}

export const ZERO_USAGE: Usage = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd: null,
}) as Usage;

/** Tokens that count against the daily cap: every token the model saw or produced. */
export function totalTokens(usage: Usage): number {
  return usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}

export type Failure<Reason extends string = string> = {
  ok: false;
  reason: Reason;
  message: string;
  /** Whether trying again later may succeed (rate limit, network) or not (auth, quota). */
  retryable: boolean;
  /** Raw detail: exit code, signal, HTTP status, stderr tail. Redacted before it is written anywhere. */
  detail?: Record<string, unknown>;
};
