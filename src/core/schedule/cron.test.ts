import { describe, expect, it } from 'vitest';
import { cronFireTimes, cronForCadence, cronForPeriod, longestCronGapMs, stableOffset, validateCron } from './cron.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const FROM = Date.UTC(2026, 8, 15, 0, 0, 0);

describe('cronForPeriod', () => {
  it.each([
    [MINUTE, 5],
    [5 * MINUTE, 5],
    [7 * MINUTE, 6],
    [15 * MINUTE, 15],
    [45 * MINUTE, 30],
    [HOUR, 60],
    [2 * HOUR, 120],
    [5 * HOUR, 240],
    [6 * HOUR, 360],
    [24 * HOUR, 1440],
    [72 * HOUR, 1440],
  ])('a period of %i ms fires every %i minutes, never slower than asked nor faster than every 5 minutes', (period, minutes) => {
    for (const id of ['ci-sweeper', 'daily-triage', 'x']) {
      const cron = cronForPeriod(period, id);
      expect(validateCron(cron)).toBeNull();
      const times = cronFireTimes(cron, FROM, 60);
      const gaps = times.slice(1).map((time, index) => time - times[index]!);
      expect(new Set(gaps)).toEqual(new Set([minutes * MINUTE]));
    }
  });

  it('spreads loops off the top of the hour, deterministically', () => {
    expect(cronForPeriod(HOUR, 'a')).toBe(cronForPeriod(HOUR, 'a'));
    expect(cronForPeriod(HOUR, 'a').split(' ')[0]).not.toBe('0');
    expect(stableOffset('anything', 1)).toBe(0);
  });

  it('derives a loop\'s cron from the short end of its cadence', () => {
    const cron = cronForCadence({ minIntervalMs: 5 * MINUTE, maxIntervalMs: 15 * MINUTE }, 'ci-sweeper');
    expect(longestCronGapMs(cron, FROM)).toBeLessThanOrEqual(5 * MINUTE);
  });
});

describe('validateCron', () => {
  it('accepts five fields and rejects the rest', () => {
    expect(validateCron('*/5 * * * *')).toBeNull();
    expect(validateCron('every day')).toMatch(/five fields/);
    expect(validateCron('61 * * * *')).not.toBeNull();
  });
});
