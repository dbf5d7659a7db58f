import { toIsoString } from '../time/utc-time.js';

/** The UTC calendar day (YYYY-MM-DD) of an epoch-millisecond time: budgets roll over at 00:00 UTC. */
let cachedDayIndex = Number.NaN;
let cachedDay = '';

export function utcDay(epochMs: number): string {
  // Called several times per tick: format each day once.
  const dayIndex = Math.floor(epochMs / 86_400_000);
  if (dayIndex !== cachedDayIndex) {
    cachedDay = toIsoString(epochMs).slice(0, 10);
    cachedDayIndex = dayIndex;
  }
  return cachedDay;
}

/** Epoch milliseconds of the next 00:00 UTC after `epochMs`. */
export function nextUtcMidnight(epochMs: number): number {
  const day = 86_400_000;
  return Math.floor(epochMs / day) * day + day;
}
