import { describe, expect, it } from 'vitest';
import { dateAt, parseTimestamp, toIsoString } from './utc-time.js';

describe('utc-time', () => {
  const at = Date.UTC(2026, 8, 15, 8, 0, 39);

  it('reads ISO timestamps, with and without an offset, as the same instant a UTC reader would', () => {
    expect(parseTimestamp('2026-09-15T08:00:39Z')).toBe(at);
    expect(parseTimestamp('2026-09-15T08:00:39')).toBe(at);
    expect(parseTimestamp('2026-09-15 08:00:39')).toBe(at);
    expect(parseTimestamp('2026-09-15T10:00:39+02:00')).toBe(at);
    expect(parseTimestamp('2026-09-15T08:00:39.250Z')).toBe(at + 250);
    expect(parseTimestamp('2026-09-15')).toBe(Date.UTC(2026, 8, 15));
  });

  it('refuses text that is not ISO-8601 instead of guessing in the host zone', () => {
    for (const text of ['yesterday', 'Sep 15 2026', '2026-09-15T8:00', '', 'never']) expect(parseTimestamp(text)).toBeNaN();
  });

  it('formats and wraps a given time, never the current one', () => {
    expect(toIsoString(at)).toBe('2026-09-15T08:00:39.000Z');
    expect(dateAt(at).getTime()).toBe(at);
    expect(() => toIsoString(Number.NaN)).toThrow(RangeError);
  });
});
