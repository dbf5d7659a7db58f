/**
 * The state file's pause line, apart from the code that updates a state file (state-file.ts re-exports it): the kill
 * switch reads it on every tick and every `status`, which write no state file.
 */
import { scanLines, splitLines } from './markdown-lines.js';

/**
 * True when the text has a line `loop-pause-all: true` — case-insensitive,
 * optionally as a list item and/or in backticks (also accepts yes/on/1).
 * Lines inside the runtime's own blocks do not count: those hold agent
 * output, and an agent must not be able to pause (or unpause) the loop.
 */
export function hasPauseLine(text: string): boolean {
  const scanned = scanLines(splitLines(text));
  return scanned.lines.some(
    (line, index) =>
      scanned.context[index] !== 'owned' &&
      /^\s*(?:[-*+]\s+)?`?\s*loop-pause-all\s*`?\s*[:=]\s*`?\s*(true|yes|on|1)\s*`?\s*$/i.test(line.text),
  );
}
