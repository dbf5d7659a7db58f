/**
 * From past tick records (run-log lines, lease-history releases) to what the
 * due decision needs per loop: the last run and the no-op streak. Pure.
 */
import { backoffSteps, type CadenceRange, type LastRun } from './decide-due.js';

/** One past tick, from whichever journal recorded it. */
export interface PastTick {
  loop: string;
  /** Epoch milliseconds the tick started. */
  at: number;
  /** Run-log outcome: "no-op", "report-only", "fix-proposed", "escalated". */
  outcome: string;
  /** Our tick id, when the source has one: the same tick in two journals counts once. */
  tickId?: string;
}

export interface LoopRunSummary {
  lastRun?: LastRun;
  consecutiveNoops: number;
}

/**
 * How far back history can still change a decision: `steps + 1` intervals
 * at the long end (a streak long enough to reach the cap, plus the last gap).
 * Entries older than this never matter, so readers can stop there.
 */
export function historyHorizonMs(cadence: CadenceRange): number {
  return (backoffSteps(cadence) + 2) * cadence.maxIntervalMs;
}

/**
 * Summarizes each loop's history: newest tick first, the streak of "no-op"
 * outcomes counted up to the backoff cap.
 *
 * @example
 * ```ts
 * summarizeRuns([{ loop: 'ci-sweeper', at: 1, outcome: 'no-op' }, { loop: 'ci-sweeper', at: 2, outcome: 'no-op' }]);
 * // → Map { 'ci-sweeper' => { lastRun: { at: 2, outcome: 'no-op' }, consecutiveNoops: 2 } }
 * ```
 */
export function summarizeRuns(ticks: readonly PastTick[]): Map<string, LoopRunSummary> {
  const byLoop = new Map<string, PastTick[]>();
  const seen = new Set<string>();
  for (const tick of ticks) {
    if (tick.tickId !== undefined) {
      const key = `${tick.loop}\u0000${tick.tickId}`;
      if (seen.has(key)) continue;
      seen.add(key);
    }
    const list = byLoop.get(tick.loop) ?? [];
    list.push(tick);
    byLoop.set(tick.loop, list);
  }
  const summaries = new Map<string, LoopRunSummary>();
  for (const [loop, list] of byLoop) {
    list.sort((a, b) => b.at - a.at);
    let consecutiveNoops = 0;
    for (const tick of list) {
      if (tick.outcome !== 'no-op') break;
      consecutiveNoops++;
    }
    const last = list[0]!;
    summaries.set(loop, { lastRun: { at: last.at, outcome: last.outcome }, consecutiveNoops });
  }
  return summaries;
}
