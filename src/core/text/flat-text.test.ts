import { describe, expect, it } from 'vitest';
import { flatText } from './flat-text.js';

/** A small seeded generator (mulberry32), so a failure names its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value ^= value + Math.imul(value ^ (value >>> 7), 61 | value);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}

describe('flatText', () => {
  it('gives the template literal’s text for 2,000 seeded mixes of strings, numbers, null, undefined and objects', () => {
    const next = random(28);
    const pieces = ['', 'a', 'Committed ', ' on ', 'loop/daily-triage/mock-1', '…', '😀', '\n', '`', '${x}'];
    const value = (): unknown => {
      const pick = Math.floor(next() * 7);
      if (pick === 0) return Math.floor(next() * 1e6) - 5e5;
      if (pick === 1) return next() * 10;
      if (pick === 2) return null;
      if (pick === 3) return undefined;
      if (pick === 4) return { toString: () => 'object-text' };
      if (pick === 5) return true;
      return pieces[Math.floor(next() * pieces.length)];
    };
    for (let round = 0; round < 2_000; round++) {
      const [a, b, c] = [value(), value(), value()];
      const literal = pieces[round % pieces.length]!;
      expect(flatText`${a} on ${b}${literal}(${c}).`).toBe(`${a} on ${b}${literal}(${c}).`);
      expect(flatText`plain`).toBe('plain');
      expect(flatText`${a}`).toBe(`${a}`);
    }
  });
});
