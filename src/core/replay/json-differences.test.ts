import { describe, expect, it } from 'vitest';
import { jsonDifferences, shortJson } from './json-differences.js';

describe('jsonDifferences', () => {
  it('names each differing leaf by its key path, and nothing for equal values', () => {
    expect(jsonDifferences({ a: [1, 2], b: { 'c-d': 'x', 'e f': 1 } }, { a: [1, 3, 4], b: { 'c-d': 'y', 'e f': 1 } })).toEqual([
      { path: 'a[1]', recorded: 2, now: 3 },
      { path: 'a[2]', recorded: undefined, now: 4 },
      { path: 'b.c-d', recorded: 'x', now: 'y' },
    ]);
    expect(jsonDifferences({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toEqual([]);
  });

  it('compares lists whole when asked, stops at the limit, and prefixes a path', () => {
    expect(jsonDifferences({ deny: ['.env', 'x'] }, { deny: ['y'] }, 10, 'gate', { wholeArrays: true })).toEqual([{ path: 'gate.deny', recorded: ['.env', 'x'], now: ['y'] }]);
    expect(jsonDifferences([1, 2, 3], [4, 5, 6], 2)).toHaveLength(2);
    expect(jsonDifferences(1, 2)).toEqual([{ path: '(value)', recorded: 1, now: 2 }]);
  });

  it('shortJson keeps a report line short', () => {
    expect(shortJson('x'.repeat(100), 10)).toBe(`"${'x'.repeat(8)}…`);
    expect(shortJson(undefined)).toBe('absent');
  });
});
