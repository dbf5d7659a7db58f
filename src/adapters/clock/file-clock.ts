/**
 * A clock set from a file, for rehearsals and tests of long-running
 * processes (`worker --clock-file`): the file holds an ISO time, and the
 * clock reads that time plus the real time elapsed since the file was last
 * written. Writing a later time into the file moves every reader forward at
 * once, so a test can step a worker through schedule slots without waiting.
 */
import { readFileSync, statSync } from 'node:fs';
import type { Clock } from '../../core/ports/index.js';

/**
 * @example
 * ```ts
 * writeFileSync('/tmp/now', '2026-11-23T08:00:00Z');
 * const clock = fileClock('/tmp/now'); // 08:00:00 plus the seconds since the write
 * ```
 */
export function fileClock(path: string): Clock {
  let cached: { mtimeMs: number; base: number } | null = null;
  return {
    now() {
      const info = statSync(path);
      if (!cached || cached.mtimeMs !== info.mtimeMs) {
        const base = Date.parse(readFileSync(path, 'utf8').trim());
        if (Number.isNaN(base)) throw new RangeError(`The clock file ${path} does not hold an ISO time.`);
        cached = { mtimeMs: info.mtimeMs, base };
      }
      return Math.floor(cached.base + Math.max(0, Date.now() - cached.mtimeMs));
    },
  };
}
