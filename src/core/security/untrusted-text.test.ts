import { describe, expect, it } from 'vitest';
import { plainLine, QUOTED_MAX, quoteUntrusted } from './untrusted-text.js';

describe('quoteUntrusted', () => {
  it.each([
    ['newlines and a trailer', 'Fix it\n\nCo-authored-by: M <m@x>', '`Fix it Co-authored-by: M <m@x>`'],
    ['CI skip markers', 'go [skip ci] [ci skip]', '`go (skip ci) (ci skip)`'],
    ['a backtick breaking out of the code span', 'a` <!-- x --> `b', "`a' <!-- x --> 'b`"],
    ['bidi override and zero-width', 'ab\u202ecd\u200bef', '`ab cd ef`'],
    ['C0/C1 controls', 'a\u0007b\u0085c\u001bd', '`a b c d`'],
  ])('defuses %s', (_name, text, expected) => {
    expect(quoteUntrusted(text)).toBe(expected);
  });

  it('caps a 10,000-character title with an ellipsis', () => {
    const quoted = quoteUntrusted('A'.repeat(10_000));
    expect([...quoted].length).toBe(QUOTED_MAX + 2);
    expect(quoted.endsWith('…`')).toBe(true);
  });

  it('the twin: an ordinary title is kept whole', () => {
    expect(quoteUntrusted('Parser crashes on empty input (#12)')).toBe('`Parser crashes on empty input (#12)`');
    expect(plainLine('  Guard the parser  ', 72)).toBe('Guard the parser');
  });

  it('says so when nothing is left', () => {
    expect(quoteUntrusted('\n\u200b\n')).toBe('(empty)');
  });
});

describe('plainLine fast paths', () => {
  /** The replacements as written before the fast paths (no plain-text test, the cap always by characters). */
  function reference(text: string, max: number): string {
    const flat = text
      .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g, ' ')
      .replace(/\s+/g, ' ')
      .replace(/\[/g, '(')
      .replace(/\]/g, ')')
      .replace(/`/g, "'")
      .trim();
    const characters = [...flat];
    return characters.length <= max ? flat : `${characters.slice(0, Math.max(0, max - 1)).join('').trimEnd()}…`;
  }

  it('agrees with the replacements on 20,000 seeded strings, plain and not', () => {
    // Plain letters and single spaces often (the fast path), and every class the replacements touch.
    const alphabet = ['a', 'b', 'Z', '1', ' ', ' ', '-', '.', '\t', '\n', '\u00a0', '\u3000', '\u200b', '\u202e', '\u0007', '[', ']', '`', 'é', '😀'];
    let seed = 28;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648);
    let plain = 0;
    for (let run = 0; run < 20_000; run++) {
      const length = next() % 24;
      const pool = next() % 3 === 0 ? alphabet : alphabet.slice(0, 7);
      const text = Array.from({ length }, () => pool[next() % pool.length]).join('');
      const max = 1 + (next() % 20);
      if (reference(text, Number.MAX_SAFE_INTEGER) === text) plain++;
      expect(plainLine(text, max), JSON.stringify({ text, max })).toBe(reference(text, max));
    }
    // Both sides of the shortcut ran many times.
    expect(plain).toBeGreaterThan(2_000);
    expect(plain).toBeLessThan(18_000);
  });
});
