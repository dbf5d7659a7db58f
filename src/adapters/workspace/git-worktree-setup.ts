/**
 * Two setup steps of GitWorkspace.prepare: switching a pooled worktree to a
 * new attempt's branch, and keeping a worktrees directory inside the checkout
 * out of the user's `git status`.
 */
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { PoolSlot } from '../../core/workspace/worktree-manifest.js';
import { git } from '../git/git-run.js';
import type { WorktreeStore } from './git-worktree-store.js';

/**
 * A pooled worktree at the base and clean only needs its branch switched;
 * otherwise it is reset and cleaned.
 *
 * @example
 * ```ts
 * await switchPooled('/state/worktrees/w-1', { clean: true, head: base, … }, 'loop/w-2', base);
 * ```
 */
export async function switchPooled(path: string, slot: PoolSlot, branch: string, baseCommit: string): Promise<void> {
  const worktree = git(path);
  if (slot.clean && slot.head === baseCommit) {
    // Two different files (the new branch's ref, the worktree's HEAD), written side by side.
    await Promise.all([worktree.raw(['update-ref', `refs/heads/${branch}`, baseCommit, '']), worktree.raw(['symbolic-ref', 'HEAD', `refs/heads/${branch}`])]);
    return;
  }
  await worktree.raw(['checkout', '--quiet', '--force', '-B', branch, baseCommit]);
  await worktree.raw(['clean', '-fdxq']);
}

/**
 * A worktrees directory inside the checkout stays out of the user's
 * `git status` (via .git/info/exclude, never .gitignore). Returns true once
 * nothing more is needed (excluded, or the directory is outside the checkout).
 *
 * @example
 * ```ts
 * await excludeFromStatus(store); // appends "/.loop-worktrees/" to .git/info/exclude once
 * ```
 */
export async function excludeFromStatus(store: WorktreeStore): Promise<boolean> {
  const rootRelative = store.relativePath(store.directory);
  if (isAbsolute(rootRelative)) return true;
  const common = (await store.rootGit.raw(['rev-parse', '--git-common-dir'])).trim();
  const excludePath = resolve(store.root, common, 'info', 'exclude');
  const line = `/${rootRelative}/`;
  const current = await readFile(excludePath, 'utf8').catch(() => '');
  if (!current.split(/\r?\n/).includes(line)) {
    await mkdir(dirname(excludePath), { recursive: true });
    await appendFile(excludePath, `${current === '' || current.endsWith('\n') ? '' : '\n'}${line}\n`);
  }
  return true;
}
