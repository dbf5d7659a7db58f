/**
 * The order test files start in: longest first, by the file times of an earlier full run kept in
 * `test/durations.json` (refreshed from a run's output by `scripts/test-durations.js`).
 *
 * Why: the forks take files in this order as they free up, so the suite's wall time is at least the start of the
 * last slow file plus its length. vitest orders by its own duration cache, which a clean clone (CI) does not have;
 * there it falls back to file size, and a 175 s file that is small on disk started in the last minutes and set the
 * tail. Longest first is the classic list-scheduling answer: the short files fill the gaps at the end.
 *
 * Files the durations do not know (new since the last refresh) go first: one may be slow, and a quick one costs
 * the schedule nothing there. *
 * `LOOP_RUNTIME_TEST_SHUFFLE=<seed>` starts the files in a seeded random order instead, to check that no file depends
 * on what another left behind (the unit project shares worker threads between files, vitest.config.ts). vitest's own
 * `--sequence.shuffle.files` cannot: it only applies when no sequencer is configured.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const DURATIONS_FILE = join(import.meta.dirname, 'durations.json');

/** Milliseconds per test file, keyed by its path relative to the repository root (forward slashes). */
export type FileDurations = Readonly<Record<string, number>>;

/** `paths` (relative, forward slashes) longest first; unknown ones before all known ones, in their given order. */
export function slowestFirst(paths: readonly string[], durations: FileDurations): string[] {
  const known = (path: string) => Object.hasOwn(durations, path);
  const unknown = paths.filter((path) => !known(path));
  const timed = paths.filter(known).sort((a, b) => durations[b]! - durations[a]! || a.localeCompare(b));
  return [...unknown, ...timed];
}

/**
 * Reads the durations file. A missing or unreadable file is not an error for the suite (every file is then
 * "unknown" and keeps vitest's order), but a malformed one names itself, so a bad refresh is seen.
 */
export function readDurations(file: string = DURATIONS_FILE): FileDurations {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${file}: expected an object of test file paths to milliseconds. To fix: run node scripts/test-durations.js <a vitest run's output>.`);
  }
  for (const [path, value] of Object.entries(parsed)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new Error(`${file}: "${path}" is ${JSON.stringify(value)}, not a duration in milliseconds. To fix: run node scripts/test-durations.js <a vitest run's output>.`);
    }
  }
  return parsed as FileDurations;
}

export const SHUFFLE_VARIABLE = 'LOOP_RUNTIME_TEST_SHUFFLE';

/** `items` in a random order that `seed` fixes (Fisher–Yates over mulberry32): the same seed, the same order. */
export function seededShuffle<T>(items: readonly T[], seed: number): T[] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const shuffled = [...items];
  for (let index = shuffled.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [shuffled[index], shuffled[other]] = [shuffled[other]!, shuffled[index]!];
  }
  return shuffled;
}

/** The start order: seeded random when `shuffleSeed` (the variable's text) is set, else {@link slowestFirst}. */
export function fileOrder(paths: readonly string[], durations: FileDurations, shuffleSeed: string | undefined): string[] {
  if (shuffleSeed === undefined || shuffleSeed === '') return slowestFirst(paths, durations);
  if (!/^\d+$/.test(shuffleSeed)) {
    throw new Error(`${SHUFFLE_VARIABLE}=${JSON.stringify(shuffleSeed)} is not a seed. To fix: set it to a whole number (e.g. ${SHUFFLE_VARIABLE}=7), or unset it for the slowest-first order.`);
  }
  return seededShuffle(paths, Number(shuffleSeed));
}

/** vitest's `sequence.sequencer`: sharding as vitest does it, the order from {@link fileOrder}. */
export class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const durations = readDurations();
    const root = this.ctx.config.root;
    const byPath = new Map<string, TestSpecification[]>();
    for (const file of files) {
      const path = relative(root, file.moduleId).split('\\').join('/');
      byPath.set(path, [...(byPath.get(path) ?? []), file]);
    }
    return fileOrder([...byPath.keys()], durations, process.env[SHUFFLE_VARIABLE]).flatMap((path) => byPath.get(path)!);
  }
}
