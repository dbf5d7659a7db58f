/**
 * The files one report reads (`status`), each read once, synchronously. A report reads a handful of small
 * files per loop — the run log, the state file, the recovery log — and the kill switch reads two of them again;
 * each asynchronous read cost four thread-pool round trips (open, stat, read, close) larger than the read itself.
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseRunLog, type RunLogEntry } from '../../core/state/run-log.js';

export interface FileSnapshot {
  /** The file's text, or null when it does not exist; read on the first call, the same text after. */
  read(path: string): string | null;
  /** `read` behind the asynchronous signature readers such as `FileKillSwitch`'s `readText` take. */
  readText(path: string): Promise<string | null>;
  /** The run log at `path`, parsed once (`FileKillSwitch`'s `readRunLog`: one parse for every loop sharing it). */
  readRunLog(path: string): Promise<readonly RunLogEntry[] | null>;
}

/**
 * @example
 * ```ts
 * const files = fileSnapshot();
 * files.read('/repo/loop-run-log.md'); // read from disk
 * await files.readText('/repo/./loop-run-log.md'); // the same text, not read again
 * ```
 */
export function fileSnapshot(): FileSnapshot {
  const texts = new Map<string, string | null>();
  const read = (path: string): string | null => {
    const key = resolve(path);
    if (!texts.has(key)) texts.set(key, readOrNull(key));
    return texts.get(key)!;
  };
  const entries = new Map<string, readonly RunLogEntry[] | null>();
  const readRunLog = (path: string): readonly RunLogEntry[] | null => {
    const key = resolve(path);
    if (!entries.has(key)) {
      const text = read(key);
      entries.set(key, text === null ? null : parseRunLog(text));
    }
    return entries.get(key)!;
  };
  return { read, readText: async (path) => read(path), readRunLog: async (path) => readRunLog(path) };
}

function readOrNull(path: string): string | null {
  // Most of a report's files usually do not exist (deliveries, recoveries); a failed read builds an exception,
  // ~0.05 ms each and more for the first, where a stat that answers "no entry" costs a tenth of that (and still
  // throws for a file it cannot reach). The catch covers a file removed in between.
  if (!statSync(path, { throwIfNoEntry: false })) return null;
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
