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
 * the schedule nothing there.
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

/** vitest's `sequence.sequencer`: sharding as vitest does it, the order from {@link slowestFirst}. */
export class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const durations = readDurations();
    const root = this.ctx.config.root;
    const byPath = new Map<string, TestSpecification[]>();
    for (const file of files) {
      const path = relative(root, file.moduleId).split('\\').join('/');
      byPath.set(path, [...(byPath.get(path) ?? []), file]);
    }
    return slowestFirst([...byPath.keys()], durations).flatMap((path) => byPath.get(path)!);
  }
}
