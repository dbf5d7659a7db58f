/** The UTC calendar day (YYYY-MM-DD) of an epoch-millisecond time: budgets roll over at 00:00 UTC. */
export function utcDay(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/** Epoch milliseconds of the next 00:00 UTC after `epochMs`. */
export function nextUtcMidnight(epochMs: number): number {
  const day = 86_400_000;
  return Math.floor(epochMs / day) * day + day;
}
