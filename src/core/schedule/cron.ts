/**
 * Cron expressions from cadences. A scheduler (GitHub Actions `schedule`,
 * crontab, a systemd timer) only has to wake `run --due` at least as often as
 * a loop's short end; `run --due` then decides whether the loop actually
 * ticks (backoff, coalescing). So each loop's cron fires every
 * `minIntervalMs`, rounded down to a period cron can express, and never more
 * often than every 5 minutes (GitHub's floor).
 *
 * Pure apart from croner, which evaluates expressions for a given date.
 */
import { Cron } from 'croner';
import type { CadenceRange } from './decide-due.js';
import { dateAt } from '../time/utc-time.js';

/** GitHub Actions runs scheduled workflows at most every 5 minutes. */
export const MIN_CRON_PERIOD_MS = 5 * 60_000;

const MINUTE_STEPS = [5, 6, 10, 12, 15, 20, 30] as const;
const HOUR_STEPS = [1, 2, 3, 4, 6, 8, 12] as const;

/**
 * A small stable number from a loop id, used to spread loops away from the
 * top of the hour (when shared schedulers are busiest) without randomness.
 */
export function stableOffset(id: string, modulo: number): number {
  let hash = 2166136261;
  for (let index = 0; index < id.length; index++) {
    hash ^= id.charCodeAt(index);
    hash = Math.imul(hash, 16777619) >>> 0;
  }
  return modulo <= 1 ? 0 : hash % modulo;
}

/**
 * A five-field cron expression that fires at least every `periodMs` (rounded
 * down to what cron can express; at least every 5 minutes, at most daily).
 *
 * @example
 * ```ts
 * cronForPeriod(15 * 60_000, 'ci-sweeper'); // → e.g. "4-59/15 * * * *"
 * cronForPeriod(6 * 3_600_000, 'dependency-sweeper'); // → e.g. "23 1-23/6 * * *"
 * ```
 */
export function cronForPeriod(periodMs: number, id: string): string {
  const minutes = Math.max(MIN_CRON_PERIOD_MS, periodMs) / 60_000;
  if (minutes < 60) {
    const step = [...MINUTE_STEPS].reverse().find((candidate) => candidate <= minutes) ?? 5;
    const offset = stableOffset(id, step);
    return `${offset === 0 ? '*' : `${offset}-59`}/${step} * * * *`;
  }
  const minute = 1 + stableOffset(id, 58);
  const hours = minutes / 60;
  if (hours < 24) {
    const step = [...HOUR_STEPS].reverse().find((candidate) => candidate <= hours) ?? 1;
    if (step === 1) return `${minute} * * * *`;
    const offset = stableOffset(`${id}:hour`, step);
    return `${minute} ${offset === 0 ? '*' : `${offset}-23`}/${step} * * *`;
  }
  return `${minute} ${stableOffset(`${id}:hour`, 24)} * * *`;
}

/** The cron for one loop: fire at its short end (`minIntervalMs`). */
export function cronForCadence(cadence: CadenceRange, id: string): string {
  return cronForPeriod(cadence.minIntervalMs, id);
}

/**
 * Checks a five-field cron expression; returns null when valid, or why not.
 *
 * @example
 * ```ts
 * validateCron('*\/5 * * * *'); // → null
 * validateCron('every day'); // → "…"
 * ```
 */
export function validateCron(expression: string): string | null {
  if (expression.trim().split(/\s+/).length !== 5) return 'a cron expression has five fields: minute hour day-of-month month day-of-week';
  try {
    new Cron(expression, { paused: true, timezone: 'Etc/UTC' });
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * The next `count` fire times (epoch ms, UTC) after `fromMs`.
 *
 * @example
 * ```ts
 * cronFireTimes('0 * * * *', Date.UTC(2026, 0, 1), 2); // → [01:00, 02:00] on 2026-01-01
 * ```
 */
export function cronFireTimes(expression: string, fromMs: number, count: number): number[] {
  const cron = new Cron(expression, { paused: true, timezone: 'Etc/UTC' });
  return cron.nextRuns(count, dateAt(fromMs)).map((date) => date.getTime());
}

/** The longest gap between consecutive fires over the next `count` fires (for checks and docs). */
export function longestCronGapMs(expression: string, fromMs: number, count = 200): number {
  const times = [fromMs, ...cronFireTimes(expression, fromMs, count)];
  let longest = 0;
  for (let index = 1; index < times.length; index++) longest = Math.max(longest, times[index]! - times[index - 1]!);
  return longest;
}
