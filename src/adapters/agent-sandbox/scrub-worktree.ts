/**
 * After the implementer: no file it changed may hold a secret value that the
 * base commit did not already hold. Such values are replaced with
 * `[REDACTED]` in place, so a worktree kept for a human carries no copy.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { MIN_SECRET_LENGTH, REDACTED } from '../../core/security/redact-secrets.js';

const MAX_FILE_BYTES = 4 * 1024 * 1024;

export interface ScrubReport {
  /** Worktree-relative paths that held a new secret value and were scrubbed. */
  scrubbed: string[];
}

async function changedPaths(worktree: string): Promise<string[]> {
  const status = await execa('git', ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames'], { cwd: worktree, reject: false });
  if (status.exitCode !== 0) return [];
  return status.stdout
    .split('\0')
    .filter((entry) => entry.length > 3)
    .map((entry) => entry.slice(3));
}

async function baseText(worktree: string, path: string): Promise<string> {
  const shown = await execa('git', ['show', `HEAD:${path}`], { cwd: worktree, reject: false, stripFinalNewline: false });
  return shown.exitCode === 0 ? shown.stdout : '';
}

/**
 * @example
 * ```ts
 * const { scrubbed } = await scrubNewSecrets(worktree, ['canary-value-123']);
 * ```
 */
export async function scrubNewSecrets(worktree: string, secrets: readonly string[]): Promise<ScrubReport> {
  const values = [...new Set(secrets)].filter((value) => value.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
  const scrubbed: string[] = [];
  if (values.length === 0) return { scrubbed };
  for (const path of await changedPaths(worktree)) {
    const file = join(worktree, path);
    try {
      const info = await stat(file);
      if (!info.isFile() || info.size > MAX_FILE_BYTES) continue;
    } catch {
      continue;
    }
    const text = await readFile(file, 'utf8');
    const present = values.filter((value) => text.includes(value));
    if (present.length === 0) continue;
    const base = await baseText(worktree, path);
    const fresh = present.filter((value) => !base.includes(value));
    if (fresh.length === 0) continue;
    let cleaned = text;
    for (const value of fresh) cleaned = cleaned.split(value).join(REDACTED);
    await writeFile(file, cleaned);
    scrubbed.push(path);
  }
  return { scrubbed };
}
