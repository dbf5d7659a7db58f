/**
 * isSecretFileName's matchers are compiled once; it must answer exactly as `minimatch(name, pattern)` per call did,
 * on names drawn from the patterns' own pieces (so both answers occur often), case-flipped, with unicode.
 */
import { minimatch } from 'minimatch';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../test/seeded-random.js';
import { isSecretFileName, SECRET_FILE_PATTERNS } from './secret-files.js';

const asBefore = (name: string) => SECRET_FILE_PATTERNS.some((pattern) => minimatch(name, pattern, { dot: true, nocase: true }));

describe('isSecretFileName', () => {
  it('answers as minimatch per pattern on 20,000 seeded names, both answers many times', () => {
    const random = seededRandom(20261127);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const pieces = [...SECRET_FILE_PATTERNS.flatMap((pattern) => pattern.split('*')), 'src', 'index', '.ts', 'K', 'İ', 'ß', '.', '_', '-', 'a'];
    const flip = (text: string) => [...text].map((character) => (random() < 0.3 ? character.toUpperCase() : character)).join('');
    const counts = { secret: 0, plain: 0 };
    for (let index = 0; index < 20_000; index++) {
      const name = flip(Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(pieces)).join(''));
      if (name === '') continue;
      const expected = asBefore(name);
      expect(isSecretFileName(name), name).toBe(expected);
      counts[expected ? 'secret' : 'plain'] += 1;
    }
    expect(counts.secret).toBeGreaterThan(1_000);
    expect(counts.plain).toBeGreaterThan(1_000);
  });
});
