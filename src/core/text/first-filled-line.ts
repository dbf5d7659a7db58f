/**
 * The first line of `text` with more than whitespace, split as `text.split(/\r?\n/)` splits it (a `\r` is dropped
 * only before a `\n`); '' when there is none. Every commit message asks this of the implementer's summary: one scan
 * with `indexOf`, not an array of every line from a regex split.
 *
 * @example
 * ```ts
 * firstFilledLine('\r\n  \nGuard the parser\r\nmore'); // → 'Guard the parser'
 * ```
 */
export function firstFilledLine(text: string): string {
  let start = 0;
  for (;;) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline > start && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
    const line = text.slice(start, end);
    if (line.trim()) return line;
    if (newline === -1) return '';
    start = newline + 1;
  }
}
