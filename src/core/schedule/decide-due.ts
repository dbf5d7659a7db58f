/**
 * When is a loop due? Pure: the caller passes every loop's cadence, its last
 * run and how many no-op ticks it has had in a row, plus the time now.
 *
 * - While ticks find work, a loop runs at the short end of its cadence.
 * - Each consecutive no-op doubles the interval, capped at the long end.
 * - After downtime, every missed slot coalesces into ONE tick: the decision
 *   is "due" or not, never "due N times", and the next slot is counted from
 *   the tick that actually ran — so a day offline never produces a burst.
 * - Schedulers fire late (CI cron drifts by minutes); a small slack (10% of
 *   the interval, at most 15 minutes) lets a tick that is almost due run now
 *   instead of skipping a whole slot — a daily loop whose cron fired 3
 *   minutes earlier than yesterday's late run still runs today.
 */

export interface CadenceRange {
  minIntervalMs: number;
  maxIntervalMs: number;
}

/** The run-log outcome of a past tick: "no-op" counts toward backoff; anything else is work. */
export interface LastRun {
  /** Epoch milliseconds the tick started. */
  at: number;
  outcome: string;
}

export interface LoopScheduleInput {
  id: string;
  cadence: CadenceRange;
  lastRun?: LastRun;
  /** No-op ticks in a row, most recent first (0 when the last tick found work). */
  consecutiveNoops: number;
}

export type DueReason = 'never-run' | 'due' | 'overdue' | 'not-yet' | 'clock-skew';

export interface DueDecision {
  id: string;
  due: boolean;
  /** When the loop is (or was) next due, epoch milliseconds. */
  nextAt: number;
  /** The interval in force: the short end while there is work, longer after no-ops. */
  intervalMs: number;
  reason: DueReason;
  /** Human-readable explanation for logs and `--json`. */
  detail: string;
}

export interface DecideDueOptions {
  /** Upper bound of the early slack (default 15 minutes); the slack is min(10% of the interval, this). */
  maxSlackMs?: number;
}

const DEFAULT_MAX_SLACK_MS = 15 * 60_000;
const SLACK_FRACTION = 0.1;

/** Doublings from the short end to the long end: more no-ops than this change nothing. */
export function backoffSteps(cadence: CadenceRange): number {
  if (cadence.maxIntervalMs <= cadence.minIntervalMs) return 0;
  return Math.ceil(Math.log2(cadence.maxIntervalMs / cadence.minIntervalMs));
}

/**
 * The interval after `consecutiveNoops` no-op ticks: min × 2^n, capped at max.
 *
 * @example
 * ```ts
 * backoffInterval({ minIntervalMs: 300_000, maxIntervalMs: 900_000 }, 0); // → 300_000
 * backoffInterval({ minIntervalMs: 300_000, maxIntervalMs: 900_000 }, 1); // → 600_000
 * backoffInterval({ minIntervalMs: 300_000, maxIntervalMs: 900_000 }, 5); // → 900_000
 * ```
 */
export function backoffInterval(cadence: CadenceRange, consecutiveNoops: number): number {
  const steps = Math.min(Math.max(0, Math.floor(consecutiveNoops)), backoffSteps(cadence));
  return Math.min(cadence.maxIntervalMs, cadence.minIntervalMs * 2 ** steps);
}

/** How early a tick may run to absorb a scheduler's drift. */
export function slackFor(intervalMs: number, options: DecideDueOptions = {}): number {
  return Math.min(intervalMs * SLACK_FRACTION, options.maxSlackMs ?? DEFAULT_MAX_SLACK_MS);
}

/**
 * Decides, for every loop, whether a tick is due now.
 *
 * @example
 * ```ts
 * const [decision] = decideDue([{ id: 'ci-sweeper', cadence: { minIntervalMs: 300_000, maxIntervalMs: 900_000 },
 *   lastRun: { at: now - 86_400_000, outcome: 'no-op' }, consecutiveNoops: 3 }], now);
 * decision.due; // → true (once: the missed slots of a day coalesce into this one tick)
 * ```
 */
export function decideDue(loops: readonly LoopScheduleInput[], now: number, options: DecideDueOptions = {}): DueDecision[] {
  return loops.map((loop) => decideOne(loop, now, options));
}

function decideOne(loop: LoopScheduleInput, now: number, options: DecideDueOptions): DueDecision {
  const intervalMs = backoffInterval(loop.cadence, loop.consecutiveNoops);
  const { id } = loop;
  if (!loop.lastRun) {
    return { id, due: true, nextAt: now, intervalMs, reason: 'never-run', detail: 'no previous tick recorded' };
  }
  const last = loop.lastRun.at;
  const nextAt = last + intervalMs;
  const interval = formatDuration(intervalMs);
  const why = loop.consecutiveNoops > 0 ? `${interval} after ${loop.consecutiveNoops} no-op tick(s) in a row` : `${interval}, the short end (the last tick found work)`;
  if (last > now) {
    // A last run "in the future" means another machine's clock runs ahead: wait it out rather than tick twice.
    return { id, due: false, nextAt, intervalMs, reason: 'clock-skew', detail: `the last tick is dated ${formatDuration(last - now)} in the future; waiting ${interval}` };
  }
  if (now < nextAt - slackFor(intervalMs, options)) {
    return { id, due: false, nextAt, intervalMs, reason: 'not-yet', detail: `next tick in ${formatDuration(nextAt - now)} (interval ${why})` };
  }
  const missed = Math.floor((now - last) / intervalMs) - 1;
  if (missed >= 1) {
    return { id, due: true, nextAt, intervalMs, reason: 'overdue', detail: `${missed} missed slot(s) coalesced into one tick (interval ${why})` };
  }
  return { id, due: true, nextAt, intervalMs, reason: 'due', detail: `interval ${why} has passed` };
}

/** "5m", "2h30m", "1d": compact, for decisions and logs. */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${Math.max(0, Math.round(ms / 1000))}s`;
  const minutes = Math.round(ms / 60_000);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  return [days ? `${days}d` : '', hours ? `${hours}h` : '', rest ? `${rest}m` : ''].join('') || '0m';
}
