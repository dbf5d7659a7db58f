/** How spend reads in every command's text: one wording for a rehearsal's (mock) tokens, which never count. */
import { formatCount } from '../../core/text/format-count.js';

/**
 * @example
 * ```ts
 * rehearsalSpend(11630); // → 'rehearsal: 11,630 tokens, not counted'
 * ```
 */
export function rehearsalSpend(tokens: number): string {
  return `rehearsal: ${formatCount(tokens)} tokens, not counted`;
}

/**
 * Dollars as every command prints them: cents from a dollar up, four decimals below (a tick often costs a fraction
 * of a cent), `$?` when unknown.
 *
 * @example
 * ```ts
 * formatUsd(1.234); // → '$1.23'
 * formatUsd(0.00312); // → '$0.0031'
 * formatUsd(null); // → '$?'
 * ```
 */
export function formatUsd(value: number | null): string {
  if (value === null) return '$?';
  return value === 0 || value >= 1 ? `$${value.toFixed(2)}` : `$${value.toFixed(4)}`;
}

/**
 * The price source line, once per output: one line when every loop shares its source, else one per source naming
 * its loops.
 *
 * @example
 * ```ts
 * priceSources([{ loop: 'a', source: 'at list prices of 2026-11-23' }, { loop: 'b', source: 'at list prices of 2026-11-23' }]);
 * // → ['Prices: at list prices of 2026-11-23.']
 * ```
 */
export function priceSources(rows: ReadonlyArray<{ loop: string; source: string }>): string[] {
  const loopsBySource = new Map<string, string[]>();
  for (const row of rows) loopsBySource.set(row.source, [...(loopsBySource.get(row.source) ?? []), row.loop]);
  if (loopsBySource.size <= 1) return [...loopsBySource.keys()].map((source) => `Prices: ${source}.`);
  return [...loopsBySource].map(([source, loops]) => `Prices (${[...new Set(loops)].join(', ')}): ${source}.`);
}
