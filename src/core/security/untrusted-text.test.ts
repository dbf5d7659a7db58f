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
