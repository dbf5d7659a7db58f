/**
 * Attempt limits, compatible with loop-context's circuit breaker over
 * loop-ledger.json: the same error three times in a row or five consecutive
 * failures open the circuit (escalate); an item whose failed attempts reach
 * `maxPerItem` escalates instead of being tried again.
 */
import type { AttemptRecord } from '../ports/index.js';

export interface AttemptLimits {
  maxPerItem: number;
  sameErrorLimit: number;
  consecutiveFailureLimit: number;
}

export type CircuitState =
  | { open: false }
  | { open: true; trigger: 'same-error' | 'consecutive-failures'; message: string };

/** Normalize an error so "timeout after 31s" and "timeout after 29s" count as the same error. */
export function errorSignature(error: string): string {
  return error
    .toLowerCase()
    .replace(/0x[0-9a-f]+/g, '#')
    .replace(/[0-9]+/g, '#')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
}

/** Looks at the loop's whole recent history (newest last). */
export function circuitState(history: readonly AttemptRecord[], limits: AttemptLimits): CircuitState {
  let consecutive = 0;
  let sameError = 0;
  let latestSignature: string | null = null;
  let sameRunEnded = false;
  for (let index = history.length - 1; index >= 0; index--) {
    const attempt = history[index]!;
    if (attempt.outcome !== 'failure') break;
    consecutive++;
    const signature = errorSignature(attempt.error ?? '');
    if (latestSignature === null) {
      latestSignature = signature;
      sameError = 1;
    } else if (!sameRunEnded && signature === latestSignature) {
      sameError++;
    } else {
      sameRunEnded = true;
    }
  }
  if (sameError >= limits.sameErrorLimit) {
    return {
      open: true,
      trigger: 'same-error',
      message: `The same error happened ${sameError} times in a row ("${history[history.length - 1]?.error ?? ''}").`,
    };
  }
  if (consecutive >= limits.consecutiveFailureLimit) {
    return { open: true, trigger: 'consecutive-failures', message: `${consecutive} consecutive failed attempts.` };
  }
  return { open: false };
}

/** How far back per-item counting looks: keeps each tick O(1) however long the history grows. */
export const ATTEMPT_WINDOW = 500;

/** Failed attempts on one item since its last success (within the last ATTEMPT_WINDOW records). */
export function failedAttemptsOn(history: readonly AttemptRecord[], itemKey: string): number {
  let failures = 0;
  const stop = Math.max(0, history.length - ATTEMPT_WINDOW);
  for (let index = history.length - 1; index >= stop; index--) {
    const attempt = history[index]!;
    if (attempt.itemKey !== itemKey) continue;
    if (attempt.outcome === 'success') break;
    if (attempt.outcome === 'failure') failures++;
  }
  return failures;
}

/** The most recent failure message on an item, for the next attempt's prompt. */
export function lastFailureOn(history: readonly AttemptRecord[], itemKey: string): string | undefined {
  const stop = Math.max(0, history.length - ATTEMPT_WINDOW);
  for (let index = history.length - 1; index >= stop; index--) {
    const attempt = history[index]!;
    if (attempt.itemKey !== itemKey) continue;
    return attempt.outcome === 'failure' ? attempt.error : undefined;
  }
  return undefined;
}
