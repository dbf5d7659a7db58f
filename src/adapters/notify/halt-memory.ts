/**
 * Which halt a loop's human was last told about, so a halt that persists is told once: a daily cap reached is told
 * on the first refused tick of the day, not on every one after it; a circuit left open is told once until a tick runs
 * again. A tick that is not a halt forgets it, so the same halt later (after `resume`, the next day) is told again.
 * Kept in `.loop-runtime/notified-halts.jsonl` (one line per change, the newest `at` per loop wins), which the state
 * branch carries between CI runs like the spend journal.
 */
import { join } from 'node:path';
import type { TickResult } from '../../core/engine/tick-result.js';
import { readTextOrNull, updateFileAtomically } from '../fs/atomic-file.js';

export const NOTIFIED_HALTS_FILE = '.loop-runtime/notified-halts.jsonl';

/** What a notifier remembers per loop. */
export interface HaltMemory {
  /** The key of the halt last told for each loop (absent: none, or forgotten). */
  load(): Promise<Map<string, string>>;
  /** Records the loop's told halt (`null`: forget it). */
  remember(loop: string, key: string | null, at: number): Promise<void>;
}

/**
 * The halt's identity for "already told": the reason, plus the UTC day for the caps that lift at midnight, plus the
 * tick for a halt that stays until `resume` (its later ticks are `awaiting-resume`, never told; a new one is new).
 * Null for a tick that is not a halt.
 */
export function haltKey(tick: TickResult): string | null {
  if (tick.kind !== 'halted') return null;
  if (tick.reason === 'budget-exhausted' || tick.reason === 'max-runs-per-day') return `${tick.reason}@${new Date(tick.finishedAt).toISOString().slice(0, 10)}`;
  if (tick.reason === 'circuit-open') return tick.reason;
  return `${tick.reason}#${tick.tickId}`;
}

/** The newest line per loop of the journal's text; a line that does not parse is skipped (the memory only saves messages). */
export function toldHalts(text: string): Map<string, string> {
  const newest = new Map<string, { at: number; key: string | null }>();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const entry = JSON.parse(line) as { loop?: unknown; key?: unknown; at?: unknown };
      if (typeof entry.loop !== 'string' || typeof entry.at !== 'number' || (entry.key !== null && typeof entry.key !== 'string')) continue;
      const previous = newest.get(entry.loop);
      if (!previous || entry.at >= previous.at) newest.set(entry.loop, { at: entry.at, key: entry.key });
    } catch {
      continue;
    }
  }
  const told = new Map<string, string>();
  for (const [loop, entry] of newest) if (entry.key !== null) told.set(loop, entry.key);
  return told;
}

/**
 * @example
 * ```ts
 * const memory = fileHaltMemory('/repo');
 * await memory.remember('ci-sweeper', 'budget-exhausted@2026-11-27', Date.now());
 * (await memory.load()).get('ci-sweeper'); // → 'budget-exhausted@2026-11-27'
 * ```
 */
export function fileHaltMemory(root: string): HaltMemory {
  const path = join(root, NOTIFIED_HALTS_FILE);
  return {
    async load() {
      return toldHalts((await readTextOrNull(path)) ?? '');
    },
    async remember(loop, key, at) {
      await updateFileAtomically(path, (old) => `${old ?? ''}${JSON.stringify({ at, loop, key })}\n`);
    },
  };
}
