/**
 * A secret rule finds spans of a text that are credentials. The redactor asks
 * every rule and replaces the union of their spans, so rules never see each
 * other's `[REDACTED]` and an overlap is redacted once.
 *
 * Rules are injected: the core's own token shapes are pattern rules, and the
 * maintained rule set (secretlint's recommended preset) is loaded by an adapter
 * (`src/adapters/secret-rules/`) and handed in as rules of the same shape.
 */

/** A half-open span `[start, end)` of the text to redact. */
export interface SecretSpan {
  start: number;
  end: number;
}

/** Finds credentials in a text. Must be pure and synchronous: it runs over every string the runtime persists. */
export interface SecretRule {
  /** Stable id, e.g. `npm-token` or `@secretlint/secretlint-rule-npm`. */
  id: string;
  find(text: string): Iterable<SecretSpan>;
}

export interface PatternRuleOptions {
  /**
   * Redact only this capture group; groups before it must be contiguous from
   * the match's start (the readable prefix, e.g. `password=`). Whole match when absent.
   */
  group?: number;
  /** Return true to leave a match alone (a count, a line of code). */
  keep?: (value: string, prefix: string) => boolean;
  /** A substring every match contains: texts without it are skipped with one `indexOf` (the regex is the cost). */
  needs?: string;
}

/**
 * A rule from one regular expression (its `g` flag is added when missing).
 *
 * @example
 * ```ts
 * const stripe = patternRule('stripe-key', /\b[sr]k_live_[A-Za-z0-9]{16,}/g);
 * [...stripe.find('key sk_live_0123456789abcdefXYZ')]; // → [{ start: 4, end: 31 }]
 * ```
 */
export function patternRule(id: string, pattern: RegExp, options: PatternRuleOptions = {}): SecretRule {
  const flags = pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`;
  const expression = new RegExp(pattern.source, flags);
  const { group, keep, needs } = options;
  return {
    id,
    find(text) {
      if (needs !== undefined && !text.includes(needs)) return [];
      // One compiled expression, reset per call: `find` runs to completion synchronously, so nothing interleaves.
      const spans: SecretSpan[] = [];
      expression.lastIndex = 0;
      for (let match = expression.exec(text); match !== null; match = expression.exec(text)) {
        if (match[0].length === 0) {
          expression.lastIndex++;
          continue;
        }
        if (group === undefined) {
          spans.push({ start: match.index, end: match.index + match[0].length });
          continue;
        }
        const prefix = match.slice(1, group).map((part) => part ?? '').join('');
        const value = match[group] ?? '';
        if (value.length === 0 || keep?.(value, prefix)) continue;
        const start = match.index + prefix.length;
        spans.push({ start, end: start + value.length });
      }
      return spans;
    },
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A rule that finds exact values (environment secrets, values from the
 * repository's `.env`, `.npmrc`, credentials files), longest first so a value
 * containing another is redacted whole. Values shorter than `minLength` are
 * ignored: "true" or "1234" would redact ordinary words.
 */
export function valuesRule(id: string, values: readonly string[], minLength: number): SecretRule {
  const sorted = [...new Set(values)].filter((value) => value.length >= minLength).sort((a, b) => b.length - a.length);
  if (sorted.length === 0) return { id, find: () => [] };
  return patternRule(id, new RegExp(sorted.map(escapeRegExp).join('|'), 'g'));
}

/** Merges overlapping or touching spans, sorted by start. */
export function mergeSpans(spans: SecretSpan[]): SecretSpan[] {
  const sorted = spans.filter((span) => span.end > span.start).sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: SecretSpan[] = [];
  for (const span of sorted) {
    const last = merged[merged.length - 1];
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ start: span.start, end: span.end });
  }
  return merged;
}
