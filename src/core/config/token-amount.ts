/**
 * Token amounts as people write them in loop-budget.md, LOOP.md and
 * registry.yaml: `100000`, `100,000`, `100_000`, `100 000`, `100k`, `1.5M`,
 * `100 thousand`, `2 million`, with an optional `~` and a trailing `tokens`
 * or `/day`. The whole text must be the amount: `100 thousand` is 100,000,
 * never 100; `50%`, `10k-20k` or `1e5` are not amounts (null), so the caller
 * reports them instead of reading a smaller cap.
 */

const UNITS: Readonly<Record<string, number>> = { k: 1_000, thousand: 1_000, m: 1_000_000, million: 1_000_000 };
// Digits, optionally grouped by threes with one separator kind (`,`, `_` or a space), and an optional fraction.
const NUMBER = /^(\d{1,3}(?:([,_ ])\d{3})?(?:\2\d{3})*|\d+)(\.\d+)?$/;

/** What to write instead; shared by every diagnostic about an amount. */
export const TOKEN_AMOUNT_FIX = 'write a number such as 100000, 100,000, 100k or 1.5M.';

/**
 * @example
 * ```ts
 * parseTokenAmount('100k'); // → 100000
 * parseTokenAmount('100 thousand'); // → 100000
 * parseTokenAmount('50%'); // → null
 * ```
 */
export function parseTokenAmount(text: string): number | null {
  let rest = text.replace(/`/g, '').trim().replace(/^[~≈]\s*/, '');
  rest = rest.replace(/\s*(?:\/\s*day|per\s+day)$/i, '').replace(/\s*tokens?$/i, '').trim();
  const unit = /\s*(k|m|thousand|million)$/i.exec(rest);
  const factor = unit ? (UNITS[(unit[1] as string).toLowerCase()] as number) : 1;
  const digits = unit ? rest.slice(0, unit.index).trim() : rest;
  const match = NUMBER.exec(digits);
  if (!match) return null;
  const number = Number(`${(match[1] as string).replace(/[,_ ]/g, '')}${match[3] ?? ''}`);
  const amount = Math.round(number * factor);
  // A fraction is only meaningful with a unit (`1.5M`); `1.5` tokens is not an amount anyone means.
  if (!Number.isFinite(amount) || (match[3] && factor === 1)) return null;
  return amount;
}
