import { formatPatch, structuredPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { linePatch } from './memory-line-patch.js';
import { seededRandom } from '../../../test/seeded-random.js';

// Few distinct lines, so duplicates (where a line diff could align more than one way) are common; CRLF and blank lines too.
const LINES = ['a', 'b', 'a', '', 'c\r', '  d', 'export const answer = 42;'];

function text(next: () => number, count: number): string {
  let out = '';
  for (let index = 0; index < count; index++) out += LINES[Math.floor(next() * LINES.length)] + '\n';
  // Sometimes no newline at the end, or a last line with none.
  const ending = next();
  if (ending < 0.15 && out.endsWith('\n')) out = out.slice(0, -1);
  else if (ending < 0.3) out += LINES[Math.floor(next() * LINES.length)];
  return out;
}

function pair(next: () => number): [string, string] {
  const before = text(next, Math.floor(next() * 9));
  const kind = next();
  if (kind < 0.1) return ['', before];
  if (kind < 0.2) return [before, ''];
  if (kind < 0.45) return [before, before + (before === '' || before.endsWith('\n') ? '' : '\n') + text(next, Math.floor(next() * 6))];
  if (kind < 0.6) return [before, before.slice(0, Math.floor(next() * (before.length + 1)))];
  if (kind < 0.65) return [before, before];
  return [before, text(next, Math.floor(next() * 9))];
}

describe('linePatch', () => {
  it('equals jsdiff structuredPatch on 5,000 seeded pairs, by the shortcut and by the fallback alike', () => {
    const next = seededRandom(28);
    let shortcut = 0;
    let fallback = 0;
    for (let index = 0; index < 5_000; index++) {
      const [before, after] = pair(next);
      for (const context of [3, 0, 1]) {
        const expected = structuredPatch('a/x.ts', 'b/x.ts', before, after, undefined, undefined, { context });
        const actual = linePatch('a/x.ts', 'b/x.ts', before, after, context);
        expect(actual, JSON.stringify({ before, after, context })).toEqual(expected);
        expect(formatPatch(Object.assign(actual, { isGit: true }))).toBe(formatPatch(Object.assign(expected, { isGit: true })));
      }
      const grows = (shorter: string, longer: string) => (shorter === '' || shorter.endsWith('\n')) && longer.startsWith(shorter);
      if (grows(before, after) || grows(after, before)) shortcut++;
      else fallback++;
    }
    // Both paths are exercised, so neither can be wrong unseen.
    expect(shortcut).toBeGreaterThan(1_000);
    expect(fallback).toBeGreaterThan(1_000);
  });

  it('appends with context and marks a last line with no newline', () => {
    expect(linePatch('a/x', 'b/x', '1\n2\n3\n4\n', '1\n2\n3\n4\n5', 3).hunks).toEqual([
      { oldStart: 2, oldLines: 3, newStart: 2, newLines: 4, lines: [' 2', ' 3', ' 4', '+5', '\\ No newline at end of file'] },
    ]);
  });
});
