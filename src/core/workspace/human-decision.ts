/**
 * Records a human's approve/reject decision in a state file's waiting block:
 * the item is ticked (`- [x]`, which the next tick drops) and a `Decided:`
 * line says what was decided. Pure string work; every other byte stays.
 */
import { markerLine, sanitizeInline } from '../state/markdown-lines.js';

/**
 * @example
 * ```ts
 * markWaitingDecided(text, 'daily-triage', 'issue#7', 'approved 2026-05-01T10:00:00Z → loop/daily-triage/x');
 * // "- [ ] issue#7 — …" becomes "- [x] issue#7 — …" plus "  Decided: approved …"
 * ```
 */
export function markWaitingDecided(text: string, patternId: string, itemKey: string, decision: string): { text: string; found: boolean } {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const open = markerLine('waiting', patternId, false);
  const close = markerLine('waiting', patternId, true);
  const key = sanitizeInline(itemKey);
  let inside = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    if (line.trim() === open) inside = true;
    else if (line.trim() === close) inside = false;
    else if (inside) {
      const match = /^([-*]) \[ \] (.*?)(?: — .*)?$/.exec(line);
      if (!match || (match[2] ?? '').trim() !== key) continue;
      lines[index] = line.replace('[ ]', '[x]');
      let end = index + 1;
      while (end < lines.length && /^\s+\S/.test(lines[end] ?? '')) end++;
      lines.splice(end, 0, `  Decided: ${sanitizeInline(decision)}`);
      return { text: lines.join(eol), found: true };
    }
  }
  return { text, found: false };
}
