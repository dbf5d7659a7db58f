/**
 * Whether a state file holds anything but what loop-runtime itself writes.
 * Loop detection counts an existing state file as configuration only when a
 * human or loop-init put something in it: a file a tick created (the fresh
 * template, `Last run:`/`Run log:` lines, our marker blocks, a pause line)
 * never enrols a loop.
 */
import { scanLines, splitLines } from './markdown-lines.js';
import { freshStateFile } from './state-template.js';

const TEMPLATE_LINES = new Set(
  freshStateFile('')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('# Loop State')),
);
const OURS = [/^# Loop State — /, /^Last run:/, /^Run log:/, /^loop-pause-all\s*:/i];

/**
 * True when every line of `text` is one loop-runtime writes: the fresh
 * template's lines, `Last run:`, `Run log:`, a `loop-pause-all:` line, or a line
 * of an owned `<!-- loop-runtime:… -->` block.
 *
 * @example
 * ```ts
 * onlyRuntimeContent(freshStateFile('acme')); // → true
 * onlyRuntimeContent('# CI Sweeper state\n- flaky: test/a.test.ts\n'); // → false
 * ```
 */
export function onlyRuntimeContent(text: string): boolean {
  const scanned = scanLines(splitLines(text));
  return scanned.lines.every((line, index) => {
    if (scanned.context[index] === 'owned') return true;
    const trimmed = line.text.trim();
    if (trimmed === '' || TEMPLATE_LINES.has(trimmed)) return true;
    return OURS.some((pattern) => pattern.test(trimmed));
  });
}
