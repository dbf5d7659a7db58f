import { describe, expect, it } from 'vitest';
import { parseCadence, safeParseCadence } from './cadence.js';
import { isLoopRuntimeError } from '../errors.js';

describe('parseCadence', () => {
  it('parses single durations in minutes, hours and days', () => {
    expect(parseCadence('30m')).toEqual({ minIntervalMs: 1_800_000, maxIntervalMs: 1_800_000 });
    expect(parseCadence('6h')).toEqual({ minIntervalMs: 21_600_000, maxIntervalMs: 21_600_000 });
    expect(parseCadence('1d')).toEqual({ minIntervalMs: 86_400_000, maxIntervalMs: 86_400_000 });
  });

  it('accepts range ends in either order', () => {
    expect(parseCadence('5m-15m')).toEqual({ minIntervalMs: 300_000, maxIntervalMs: 900_000 });
    expect(parseCadence('1d-2h')).toEqual({ minIntervalMs: 7_200_000, maxIntervalMs: 86_400_000 });
    expect(parseCadence('6h-1d')).toEqual(parseCadence('1d-6h'));
  });

  it('rejects text that is not a cadence with a config error that says how to fix it', () => {
    expect(safeParseCadence('every day')).toBeNull();
    expect(safeParseCadence('0m')).toBeNull();
    expect(safeParseCadence('5s')).toBeNull();
    try {
      parseCadence('every day');
      expect.unreachable();
    } catch (error) {
      expect(isLoopRuntimeError(error) && error.code).toBe('CONFIG_INVALID');
      expect((error as Error).message).toBe('"every day" is not a cadence. To fix: use 30m, 6h, 1d or a range like 5m-15m.');
    }
  });
});
