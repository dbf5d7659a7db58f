/**
 * Text an outsider wrote (an item's title from an issue, a CI run, a log) is
 * never our words: it never becomes a commit subject, a pull-request title or
 * a state-file line of its own. Where it is worth showing, it is quoted as
 * data: one line, no control or invisible characters, nothing a renderer or a
 * parser acts on, length-capped.
 *
 * What each step defuses:
 * - newlines and line separators: a second line could start a git trailer
 *   (`Co-authored-by:`, `Signed-off-by:`) or a markdown block;
 * - control, zero-width and bidi-override characters: hidden or reordered text;
 * - square brackets: `[skip ci]`-style markers anywhere in a commit message skip CI; markdown links;
 * - backticks, then a code span around the whole: no HTML (`<!-- -->`, `<img>`), mentions, links or
 *   emphasis render in a pull-request body;
 * - the length cap: a 10,000-character title cannot bury the change.
 */

/** Longest quoted title, in characters (before the `…`). */
export const QUOTED_MAX = 120;

// C0/C1 controls, zero-width, line/paragraph separators, bidi embeddings/overrides/isolates, BOM.
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** What `plainLine`'s replacements would change: an invisible, whitespace other than one space, a bracket, a backtick, an edge space. */
const NOT_PLAIN = new RegExp(`${INVISIBLE.source}|[^\\S ]| {2}|[[\\]\`]|^ | $`);

function cap(text: string, max: number): string {
  // No more UTF-16 units than the cap means no more characters either: nothing to cut, no array of characters.
  if (text.length <= max) return text;
  const characters = [...text];
  return characters.length <= max ? text : `${characters.slice(0, Math.max(0, max - 1)).join('').trimEnd()}…`;
}

/**
 * One plain line: whitespace runs and invisible characters become one space,
 * `[`/`]` become `(`/`)`, backticks become `'`; capped at `max` characters.
 *
 * @example
 * ```ts
 * plainLine('Fix\nCo-authored-by: x <x@y> [skip ci]', 80); // → "Fix Co-authored-by: x <x@y> (skip ci)"
 * ```
 */
export function plainLine(text: string, max: number): string {
  // Most lines (a summary, an item key) are plain already: one test instead of five replacements.
  if (!NOT_PLAIN.test(text)) return cap(text, max);
  const flat = text
    .replace(INVISIBLE, ' ')
    .replace(/\s+/g, ' ')
    .replace(/\[/g, '(')
    .replace(/\]/g, ')')
    .replace(/`/g, "'")
    .trim();
  return cap(flat, max);
}

/**
 * Untrusted text as quoted data: a plain line in a code span, so neither git
 * nor a markdown renderer acts on it.
 *
 * @example
 * ```ts
 * quoteUntrusted('<!-- hide --> [skip ci]'); // → "`<!-- hide --> (skip ci)`"
 * ```
 */
export function quoteUntrusted(text: string, max = QUOTED_MAX): string {
  const line = plainLine(text, max);
  return line ? `\`${line}\`` : '(empty)';
}
