import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../test/seeded-random.js';
import { firstFilledLine } from './first-filled-line.js';

/** What it replaces: split on CRLF or LF, the first line `trim()` leaves anything of. */
const reference = (text: string): string => text.split(/\r?\n/).find((line) => line.trim()) ?? '';

describe('firstFilledLine', () => {
  it('equals the split-and-find it replaces on 20,000 seeded texts of lines, blanks, CR, LF and other whitespace', () => {
    const random = seededRandom(20261127);
    const pieces = ['a', 'b c', ' ', '\t', '\n', '\r', '\r\n', '\u2028', '\u00a0', 'é'];
    let blank = 0;
    let found = 0;
    for (let run = 0; run < 20_000; run++) {
      const length = Math.floor(random() * 12);
      const text = Array.from({ length }, () => pieces[Math.floor(random() * pieces.length)]).join('');
      const expected = reference(text);
      expect(firstFilledLine(text), JSON.stringify(text)).toBe(expected);
      if (expected === '') blank++;
      else found++;
    }
    expect(blank).toBeGreaterThan(1_000);
    expect(found).toBeGreaterThan(1_000);
  });

  it('drops a CR only before a LF, as the split does', () => {
    expect(firstFilledLine('one\r\ntwo')).toBe('one');
    expect(firstFilledLine('one\r')).toBe('one\r');
    expect(firstFilledLine('\r\n\r\n  x  \r\n')).toBe('  x  ');
    expect(firstFilledLine('')).toBe('');
  });
});
