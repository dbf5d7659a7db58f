/**
 * Attempt limits, compatible with loop-context's circuit breaker over
 * loop-ledger.json: the same error three times in a row or five consecutive
 * failures open the circuit (escalate); an item whose failed attempts reach
 * `maxPerItem` escalates instead of being tried again.
 *
 * The circuit is per loop: every loop of a repository shares one ledger, and
 * each counts only its own records — three ci-sweeper failures never open
 * daily-triage's circuit. Records with no loop (`patternId: null`, written
 * before attempt-ledger-v2 or by other tools) count for every loop: their
 * owner is unknown, and counting them can only stop a loop sooner.
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

/** True when a record counts for this loop: its own, or one whose loop is unknown (fail-closed). */
export function countsFor(record: AttemptRecord, patternId: string): boolean {
  return record.patternId === null || record.patternId === patternId;
}

/** The records that count for one loop, in order. */
export function historyOf(history: readonly AttemptRecord[], patternId: string): AttemptRecord[] {
  return history.filter((record) => countsFor(record, patternId));
}

/** Looks at one loop's recent history (newest last); other loops' records are skipped. */
export function circuitState(allHistory: readonly AttemptRecord[], limits: AttemptLimits, patternId: string): CircuitState {
  let consecutive = 0;
  let sameError = 0;
  let latestSignature: string | null = null;
  let latestError = '';
  let sameRunEnded = false;
  // Newest first, by index: no copy and no generator, and each record is read once (a ledger's view may be a Proxy).
  for (let index = allHistory.length - 1; index >= 0; index--) {
    const attempt = allHistory[index]!;
    if (!countsFor(attempt, patternId)) continue;
    if (attempt.outcome !== 'failure') break;
    consecutive++;
    const signature = errorSignature(attempt.error ?? '');
    if (latestSignature === null) {
      latestSignature = signature;
      latestError = attempt.error ?? '';
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
      message: `The same error happened ${sameError} times in a row ("${latestError}").`,
    };
  }
  if (consecutive >= limits.consecutiveFailureLimit) {
    return { open: true, trigger: 'consecutive-failures', message: `${consecutive} consecutive failed attempts.` };
  }
  return { open: false };
}

/** One failed attempt in the run that opened a circuit, for `status` and `doctor`. */
export interface CircuitFailure {
  tickId: string;
  itemKey: string;
  at: number;
  error: string;
}

/** The failures since the loop's last non-failure (a success, a no-op, a reset), newest first, at most `limit`. */
export function openingFailures(allHistory: readonly AttemptRecord[], patternId: string, limit = 10): CircuitFailure[] {
  const failures: CircuitFailure[] = [];
  for (let index = allHistory.length - 1; index >= 0 && failures.length < limit; index--) {
    const attempt = allHistory[index]!;
    if (!countsFor(attempt, patternId)) continue;
    if (attempt.outcome !== 'failure') break;
    failures.push({ tickId: attempt.tickId, itemKey: attempt.itemKey, at: attempt.at, error: attempt.error ?? '' });
  }
  return failures;
}

/** Item key of the record `resume <id>` appends to close a loop's circuit. */
export const CIRCUIT_RESET_ITEM = 'circuit-reset';

/**
 * The reset marker `loop-runtime resume <id>` appends to the loop's attempts (on any store): a `noop` record, so
 * `circuitState` stops counting at it while every failure before it stays as history, and no item's failure
 * count (`failedAttemptsOn`) changes.
 *
 * @example
 * ```ts
 * await attempts.append(circuitResetRecord({ patternId: 'ci-sweeper', by: 'ana@host', at: clock.now() }));
 * circuitState(await attempts.history(), limits, 'ci-sweeper'); // → { open: false }
 * ```
 */
export function circuitResetRecord(request: { patternId: string; by: string; at: number; tickId: string }): AttemptRecord {
  return { patternId: request.patternId, itemKey: CIRCUIT_RESET_ITEM, tickId: request.tickId, at: request.at, outcome: 'noop', error: `circuit reset by ${request.by}`, tokensUsed: 0 };
}

/** How far back per-item counting looks: keeps each tick O(1) however long the history grows. */
export const ATTEMPT_WINDOW = 500;

/** Identifies one item of one loop. */
export interface ItemOfLoop {
  patternId: string;
  itemKey: string;
}

/** Failed attempts of one loop on one item since its last success (within the loop's last ATTEMPT_WINDOW records). */
export function failedAttemptsOn(allHistory: readonly AttemptRecord[], target: ItemOfLoop): number {
  let failures = 0;
  let seen = 0;
  for (let index = allHistory.length - 1; index >= 0 && seen < ATTEMPT_WINDOW; index--) {
    const attempt = allHistory[index]!;
    if (!countsFor(attempt, target.patternId)) continue;
    seen++;
    if (attempt.itemKey !== target.itemKey) continue;
    if (attempt.outcome === 'success') break;
    if (attempt.outcome === 'failure') failures++;
  }
  return failures;
}

/** The most recent failure message of one loop on an item, for the next attempt's prompt. */
export function lastFailureOn(allHistory: readonly AttemptRecord[], target: ItemOfLoop): string | undefined {
  let seen = 0;
  for (let index = allHistory.length - 1; index >= 0 && seen < ATTEMPT_WINDOW; index--) {
    const attempt = allHistory[index]!;
    if (!countsFor(attempt, target.patternId)) continue;
    seen++;
    if (attempt.itemKey !== target.itemKey) continue;
    return attempt.outcome === 'failure' ? attempt.error : undefined;
  }
  return undefined;
}
