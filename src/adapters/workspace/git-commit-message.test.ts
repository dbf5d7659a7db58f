import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { stripspace } from './git-commit-message.js';
import { seededRandom } from '../../../test/seeded-random.js';

/** git's own cleanup of the same text (what `git commit --cleanup=whitespace` applies). */
const gitStripspace = (text: string) => execFileSync('git', ['stripspace'], { input: text }).toString('utf8');

const PIECES = ['fix: x', 'Why', '# not a comment here', 'Loop-Pattern: p', ' ', '  ', '\t', '\r', '\v', '\f', '\n', '\n', '\n', 'é', 'a b', '- item'];

describe('stripspace', () => {
  it('matches `git stripspace` on known shapes', () => {
    for (const text of ['', '\n', 'x', 'x\n', '\n\nx  \n\n\n\ny\t\n\n', 'a\r\nb\r\n', '  lead\n', 'a\n \n\t\nb', 'a\v\n\fb\n']) {
      expect(stripspace(text), JSON.stringify(text)).toBe(gitStripspace(text));
    }
  });

  it('matches `git stripspace` on 300 seeded random messages', () => {
    const next = seededRandom(28);
    const texts = Array.from({ length: 300 }, () => Array.from({ length: Math.floor(next() * 14) }, () => PIECES[Math.floor(next() * PIECES.length)]).join(''));
    const mismatches = texts.filter((text) => stripspace(text) !== gitStripspace(text));
    expect(mismatches).toEqual([]);
    // The generator reaches both sides of every rule: something to strip, and something kept as written.
    expect(texts.some((text) => stripspace(text) !== text)).toBe(true);
    expect(texts.some((text) => text !== '' && stripspace(text) === text)).toBe(true);
  });
});
