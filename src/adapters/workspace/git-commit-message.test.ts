import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { stripspace } from './git-commit-message.js';

/** git's own cleanup of the same text (what `git commit --cleanup=whitespace` applies). */
const gitStripspace = (text: string) => execFileSync('git', ['stripspace'], { input: text }).toString('utf8');

/** A small seeded generator (mulberry32), so a failure names a reproducible case. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['fix: x', 'Why', '# not a comment here', 'Loop-Pattern: p', ' ', '  ', '\t', '\r', '\v', '\f', '\n', '\n', '\n', 'é', 'a b', '- item'];

describe('stripspace', () => {
  it('matches `git stripspace` on known shapes', () => {
    for (const text of ['', '\n', 'x', 'x\n', '\n\nx  \n\n\n\ny\t\n\n', 'a\r\nb\r\n', '  lead\n', 'a\n \n\t\nb', 'a\v\n\fb\n']) {
      expect(stripspace(text), JSON.stringify(text)).toBe(gitStripspace(text));
    }
  });

  it('matches `git stripspace` on 300 seeded random messages', () => {
    const next = random(28);
    const texts = Array.from({ length: 300 }, () => Array.from({ length: Math.floor(next() * 14) }, () => PIECES[Math.floor(next() * PIECES.length)]).join(''));
    const mismatches = texts.filter((text) => stripspace(text) !== gitStripspace(text));
    expect(mismatches).toEqual([]);
    // The generator reaches both sides of every rule: something to strip, and something kept as written.
    expect(texts.some((text) => stripspace(text) !== text)).toBe(true);
    expect(texts.some((text) => text !== '' && stripspace(text) === text)).toBe(true);
  });
});
