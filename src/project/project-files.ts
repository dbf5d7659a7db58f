/**
 * Small file helpers for project loading: absent files are null, never exceptions.
 *
 * They read synchronously behind an async signature: a project is a few dozen small files, and on a busy machine
 * each asynchronous read waits for a thread-pool hand-off that costs more than the read (`list` in a loop-init
 * scaffold makes ~30 of them). Callers keep awaiting, so nothing about their order changes.
 */
import { accessSync, readdirSync, readFileSync } from 'node:fs';

/** Reads a UTF-8 file, or null when it does not exist or is not a readable file. */
export async function readOptionalText(path: string): Promise<string | null> {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Whether a path exists. */
export async function pathExists(path: string): Promise<boolean> {
  try {
    accessSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Names of the sub-directories of `path` (empty when it is absent), sorted for determinism. */
export async function listDirectories(path: string): Promise<string[]> {
  try {
    const entries = readdirSync(path, { withFileTypes: true });
    return entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  } catch {
    return [];
  }
}
