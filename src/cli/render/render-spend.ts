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
