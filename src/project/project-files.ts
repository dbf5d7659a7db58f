/** Small file helpers for project loading: absent files are null, never exceptions. */
import { access, readdir, readFile } from 'node:fs/promises';

/** Reads a UTF-8 file, or null when it does not exist or is not a readable file. */
export async function readOptionalText(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null;
  }
}

/** Whether a path exists. */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** Names of the sub-directories of `path` (empty when it is absent), sorted for determinism. */
export async function listDirectories(path: string): Promise<string[]> {
  try {
    const entries = await readdir(path, { withFileTypes: true });
    return entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  } catch {
    return [];
  }
}
