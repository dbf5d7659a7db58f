import { describe, expect, it } from 'vitest';
import { memoByString } from './memo-by-string.js';

describe('memoByString', () => {
  it('computes a key once, answers the same after, null and false included', () => {
    const calls: string[] = [];
    const classify = memoByString((key: string) => {
      calls.push(key);
      return key === 'none' ? null : key.endsWith('.test.ts');
    });
    expect([classify('a.test.ts'), classify('a.ts'), classify('none')]).toEqual([true, false, null]);
    expect([classify('a.test.ts'), classify('a.ts'), classify('none')]).toEqual([true, false, null]);
    expect(calls).toEqual(['a.test.ts', 'a.ts', 'none']);
  });

  it('starts over past its limit (bounded memory) and still answers right', () => {
    const calls: string[] = [];
    const length = memoByString((key: string) => {
      calls.push(key);
      return key.length;
    }, 2);
    expect([length('a'), length('bb'), length('ccc'), length('a')]).toEqual([1, 2, 3, 1]);
    // 'ccc' filled it past the limit: 'a' was forgotten and computed again.
    expect(calls).toEqual(['a', 'bb', 'ccc', 'a']);
  });
});
