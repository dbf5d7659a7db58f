/**
 * Finds the secret files under a directory the agent will see, so the sandbox
 * can mask them and the proxy can redact their values.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isSecretDirectoryName, isSecretFileName, secretValuesInFile } from './secret-files.js';

/** Directories never descended into: dependency trees and VCS data are large and not the user's secrets. */
const SKIPPED = new Set(['node_modules', '.git', '.hg', '.svn', '.venv', 'venv', '__pycache__', 'target', 'dist', 'build', '.next', '.cache']);
const MAX_ENTRIES = 50_000;
const MAX_DEPTH = 12;
const MAX_FILE_BYTES = 256 * 1024;

export interface SecretFiles {
  /** Secret files (absolute paths): masked with /dev/null. */
  files: string[];
  /** Secret directories (absolute paths): masked with an empty tmpfs. */
  directories: string[];
  /** Values assigned in those files, for redaction. */
  values: string[];
  /** True when the walk stopped at its entry limit; the caller decides whether that is acceptable. */
  truncated: boolean;
}

export interface FindSecretFilesOptions {
  /** Absolute paths not to descend into (e.g. the loop's worktrees). */
  skip?: readonly string[];
}

/**
 * Walks `root` breadth-first (at most 50,000 entries, 12 levels), skipping
 * dependency and VCS directories and symlinks.
 *
 * @example
 * ```ts
 * const { files, values } = await findSecretFiles('/home/me/project');
 * ```
 */
export async function findSecretFiles(root: string, options: FindSecretFilesOptions = {}): Promise<SecretFiles> {
  const skip = new Set(options.skip ?? []);
  const result: SecretFiles = { files: [], directories: [], values: [], truncated: false };
  const values = new Set<string>();
  let queue: string[] = [root];
  let seen = 0;
  for (let depth = 0; depth <= MAX_DEPTH && queue.length > 0; depth++) {
    const next: string[] = [];
    for (const directory of queue) {
      let entries;
      try {
        entries = await readdir(directory, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (++seen > MAX_ENTRIES) {
          result.truncated = true;
          break;
        }
        const path = join(directory, entry.name);
        if (entry.isDirectory()) {
          if (isSecretDirectoryName(entry.name)) result.directories.push(path);
          else if (!SKIPPED.has(entry.name) && !skip.has(path)) next.push(path);
        } else if (entry.isFile() && isSecretFileName(entry.name)) {
          result.files.push(path);
          for (const value of await valuesOf(path)) values.add(value);
        }
      }
    }
    queue = next;
  }
  result.values = [...values];
  return result;
}

async function valuesOf(path: string): Promise<string[]> {
  try {
    if ((await stat(path)).size > MAX_FILE_BYTES) return [];
    return secretValuesInFile(await readFile(path, 'utf8'));
  } catch {
    return [];
  }
}
