/**
 * Cadences as the catalogue writes them: `30m`, `6h`, `1d`, or a range
 * `5m-15m` whose ends may come in either order (`1d-2h`).
 */
import { LoopRuntimeError } from '../errors.js';
import { CADENCE_PATTERN } from './constants.js';

export interface CadenceInterval {
  minIntervalMs: number;
  maxIntervalMs: number;
}

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export const CADENCE_FIX = 'use 30m, 6h, 1d or a range like 5m-15m.';

function durationMs(part: string): number {
  const unit = part.slice(-1) as keyof typeof UNIT_MS;
  return Number(part.slice(0, -1)) * UNIT_MS[unit];
}

/**
 * Parses a cadence, or returns null when the text is not one.
 *
 * @example
 * ```ts
 * safeParseCadence('1d-2h'); // → { minIntervalMs: 7_200_000, maxIntervalMs: 86_400_000 }
 * safeParseCadence('every day'); // → null
 * ```
 */
export function safeParseCadence(text: string): CadenceInterval | null {
  const trimmed = text.trim();
  if (!CADENCE_PATTERN.test(trimmed)) return null;
  const [first, second] = trimmed.split('-');
  const a = durationMs(first as string);
  const b = second === undefined ? a : durationMs(second);
  if (a <= 0 || b <= 0) return null;
  return { minIntervalMs: Math.min(a, b), maxIntervalMs: Math.max(a, b) };
}

/**
 * Parses a cadence; throws a `CONFIG_INVALID` error when the text is not one.
 *
 * @example
 * ```ts
 * parseCadence('5m-15m'); // → { minIntervalMs: 300_000, maxIntervalMs: 900_000 }
 * ```
 */
export function parseCadence(text: string): CadenceInterval {
  const interval = safeParseCadence(text);
  if (interval === null) {
    throw new LoopRuntimeError('CONFIG_INVALID', `${JSON.stringify(text)} is not a cadence.`, { fix: CADENCE_FIX });
  }
  return interval;
}
