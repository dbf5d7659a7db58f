/**
 * A price table's shape and lookup (pure): the backends price calls with it (`backends/shared/usage.ts` holds the
 * list prices), and `run`, `status` and `history` say which table priced a cost.
 */
/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/**
 * Model name (exact, or a prefix ending in `*`) → price. The longest matching
 * key wins, so `gpt-4o-mini*` beats `gpt-4o*`.
 */
export type PriceTable = Record<string, ModelPrice>;

/** The day the providers' list prices in `DEFAULT_PRICES` were last checked: every cost priced by the table says so. */
export const DEFAULT_PRICES_AS_OF = '2026-11-23';

/**
 * The price of `model` in one table: an exact key, or the longest prefix key ending in `*`; null when none matches.
 *
 * @example
 * ```ts
 * lookUpPrice('gpt-4o-mini-2024', { 'gpt-4o*': a, 'gpt-4o-mini*': b }); // → b
 * ```
 */
export function lookUpPrice(model: string, table: PriceTable): ModelPrice | null {
  let best: { length: number; price: ModelPrice } | null = null;
  for (const [key, price] of Object.entries(table)) {
    const matches = key.endsWith('*') ? model.startsWith(key.slice(0, -1)) : model === key;
    if (matches && (!best || key.length > best.length)) best = { length: key.length, price };
  }
  return best?.price ?? null;
}
