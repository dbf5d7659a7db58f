/**
 * `--level` for the commands that tick (`run`, `replay`, `test`). Its own module: `replay` and `test` importing it from
 * `commands/run.ts` put that command in a chunk shared with theirs, and `run`'s `import()` then loaded it through a
 * facade file (one more file for the ESM loader on every run).
 */
import { LEVELS, type Level } from '../core/config/constants.js';
import { LoopRuntimeError } from '../core/errors.js';

export function parseLevel(value: unknown): Level | undefined {
  if (value === undefined) return undefined;
  const level = String(value).toUpperCase();
  if (!(LEVELS as readonly string[]).includes(level)) {
    throw new LoopRuntimeError('USAGE', `--level ${String(value)} is not an autonomy level.`, { fix: 'use L0, L1, L2 or L3.' });
  }
  return level as Level;
}
