/**
 * jsdiff's `structuredPatch` for two versions of one file, with a shortcut for
 * the edits a tick makes most (a file created, deleted, grown at its end or cut
 * at its end), where the line diff has one answer and Myers' search is pure
 * cost (~8 µs of a ~90 µs mock tick). The shortcut builds exactly the hunk
 * jsdiff builds — same ranges, same context, same `\ No newline at end of file`
 * — and `memory-line-patch.test.ts` holds it to jsdiff on seeded inputs; every
 * other edit goes to jsdiff itself.
 */
import { structuredPatch, type StructuredPatch } from 'diff';

type Hunk = StructuredPatch['hunks'][number];

/** `text`'s lines, each with its `\n` (the last without one when the text does not end in a newline), as jsdiff splits them. */
function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  const last = lines.pop()!;
  for (let index = 0; index < lines.length; index++) lines[index] += '\n';
  if (last !== '') lines.push(last);
  return lines;
}

/** jsdiff's step 2: a line loses its `\n`, or gains the marker when it had none. */
function withoutNewlines(lines: string[]): string[] {
  const out: string[] = [];
  for (const line of lines) {
    if (line.endsWith('\n')) out.push(line.slice(0, -1));
    else out.push(line, '\\ No newline at end of file');
  }
  return out;
}

/** One hunk for `kept` unchanged lines followed by `changed` lines all added (`+`) or all removed (`-`). */
function tailHunk(kept: string[], changed: string[], sign: '+' | '-', context: number): Hunk[] {
  if (changed.length === 0) return [];
  const shown = context > 0 ? kept.slice(-context) : [];
  const start = kept.length + 1 - shown.length;
  const lines: string[] = [];
  for (const line of shown) lines.push(' ' + line);
  for (const line of changed) lines.push(sign + line);
  const added = sign === '+' ? changed.length : 0;
  const removed = sign === '-' ? changed.length : 0;
  return [{ oldStart: start, oldLines: shown.length + removed, newStart: start, newLines: shown.length + added, lines: withoutNewlines(lines) }];
}

/** Whether `longer` is `shorter` plus whole lines: `shorter` is empty or ends in a newline, and `longer` starts with it. */
function grownByLines(shorter: string, longer: string): boolean {
  return (shorter === '' || shorter.endsWith('\n')) && longer.startsWith(shorter);
}

/**
 * The structured patch between `before` and `after`, as `structuredPatch(oldName, newName, before, after,
 * undefined, undefined, { context })` returns it.
 *
 * @example
 * ```ts
 * linePatch('a/x.ts', 'b/x.ts', 'a\n', 'a\nb\n', 3).hunks;
 * // → [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 2, lines: [' a', '+b'] }]
 * ```
 */
export function linePatch(oldName: string, newName: string, before: string, after: string, context: number): StructuredPatch {
  let hunks: Hunk[] | undefined;
  if (grownByLines(before, after)) hunks = tailHunk(linesOf(before), linesOf(after.slice(before.length)), '+', context);
  else if (grownByLines(after, before)) hunks = tailHunk(linesOf(after), linesOf(before.slice(after.length)), '-', context);
  if (!hunks) return structuredPatch(oldName, newName, before, after, undefined, undefined, { context });
  return { oldFileName: oldName, newFileName: newName, oldHeader: undefined, newHeader: undefined, hunks };
}
