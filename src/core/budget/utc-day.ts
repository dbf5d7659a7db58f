import { toIsoString } from '../time/utc-time.js';

/**
 * The UTC calendar day (YYYY-MM-DD) of an epoch-millisecond time: budgets roll over at 00:00 UTC.
 * Called several times per tick, for today and (reconciling abandoned reservations) yesterday: the two latest
 * days asked for are formatted once each, instead of alternating one cached day.
 */
const cachedIndexes = [Number.NaN, Number.NaN];
const cachedDays = ['', ''];
let newest = 0;

export function utcDay(epochMs: number): string {
  const dayIndex = Math.floor(epochMs / 86_400_000);
  if (dayIndex === cachedIndexes[newest]) return cachedDays[newest]!;
  const other = 1 - newest;
  if (dayIndex === cachedIndexes[other]) return cachedDays[other]!;
  cachedIndexes[other] = dayIndex;
  cachedDays[other] = toIsoString(epochMs).slice(0, 10);
  newest = other;
  return cachedDays[other]!;
}

/** Epoch milliseconds of the next 00:00 UTC after `epochMs`. */
export function nextUtcMidnight(epochMs: number): number {
  const day = 86_400_000;
  return Math.floor(epochMs / day) * day + day;
}
