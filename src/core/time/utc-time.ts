/**
 * The core's only door to the `Date` built-in (the lint rule `no-restricted-globals`
 * bans it everywhere else in src/core). Everything here is a pure function of
 * its argument: no wall clock, and no host time zone — text without an offset is
 * read as UTC, so a tick replays the same on a laptop in Tokyo and a CI runner.
 * The wall clock itself is injected (`Clock`); see engine/defaults.ts.
 */
/* eslint-disable no-restricted-globals -- this file is the sanctioned, pure wrapper around Date (see above) */

/** `2026-09-15`, `2026-09-15T08:00`, `2026-09-15T08:00:39.5`, each with an optional `Z` or `±hh:mm`. */
const ISO_TIMESTAMP = /^(\d{4}-\d\d-\d\d)(?:[T ](\d\d:\d\d(?::\d\d(?:\.\d{1,9})?)?)(Z|[+-]\d\d:?\d\d)?)?$/;

/**
 * Epoch milliseconds of an ISO-8601 date or date-time; `NaN` when the text is
 * not one. A date-time without an offset counts as UTC (JavaScript's
 * `Date.parse` would use the host's zone).
 *
 * @example
 * ```ts
 * parseTimestamp('2026-09-15T08:00:39Z'); // → 1789459239000
 * parseTimestamp('2026-09-15T08:00:39');  // → the same
 * parseTimestamp('yesterday');            // → NaN
 * ```
 */
export function parseTimestamp(text: string): number {
  const match = ISO_TIMESTAMP.exec(text.trim());
  if (!match) return Number.NaN;
  const [, day, time, zone] = match;
  if (time === undefined) return Date.parse(`${day}T00:00:00Z`);
  return Date.parse(`${day}T${time}${zone ?? 'Z'}`);
}

/** ISO-8601 UTC with milliseconds: `2026-09-15T08:00:39.000Z`. Throws a RangeError for a non-finite time. */
export function toIsoString(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

/** A `Date` for libraries that take one (croner); never the current time. */
export function dateAt(epochMs: number): Date {
  return new Date(epochMs);
}
