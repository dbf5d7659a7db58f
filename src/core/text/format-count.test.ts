import { describe, expect, it } from 'vitest';
import { formatCount } from './format-count.js';

describe('formatCount', () => {
  it.each([0, -0, 7, -7, 999, 1000, -1000, 12_345, 100_000, 999_999, 1_000_000, -1_234_567, 2_000_000_000, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER])(
    'writes %d as toLocaleString("en-US") does',
    (value) => {
      expect(formatCount(value)).toBe(value.toLocaleString('en-US'));
    },
  );

  it.each([1.5, -2.25, 1234.5678, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60])('hands %d to toLocaleString', (value) => {
    expect(formatCount(value)).toBe(value.toLocaleString('en-US'));
  });
});
