/**
 * The base commit's files inside an attempt's worktree: reading one, running
 * something with the base's versions of some paths in place (verification
 * against the base's tests), and the checkout's installed dependencies a
 * command may see read-only. git writes every file (it refuses to write
 * beyond a symbolic link), so nothing here follows a link out of the worktree.
 */
import { lstat, readdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { ReadOnlyBind, WorkspaceHandle, WorkspaceResult } from '../../core/ports/index.js';
import { confinedFiles } from './git-confined-files.js';
import { withBaseTestItems } from './rust-inline-tests.js';
import { git, gitFailure } from '../git/git-run.js';
import { normalizeWorkspacePath } from './workspace-path.js';
import { splitNul } from '../../core/workspace/git-diff-parse.js';

/** Pathspecs taken literally: a test named `*.test.ts` or `:(glob)x` is one file, never a pattern. */
const LITERAL = { GIT_LITERAL_PATHSPECS: '1' };

/** A file's text at `commit`, or null when the commit has no such file. */
export async function readAtCommit(directory: string, commit: string, path: string): Promise<string | null> {
  const key = normalizeWorkspacePath(path);
  const listed = await git(directory).raw(['ls-tree', '-z', '--name-only', commit, '--', key], LITERAL);
  if (!splitNul(listed).includes(key)) return null;
  return git(directory).raw(['cat-file', 'blob', `${commit}:${key}`]);
}

/** Which of `paths` exist as files in `tree`. */
async function presentIn(directory: string, tree: string, paths: readonly string[]): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  const listed = await git(directory).raw(['ls-tree', '-r', '-z', '--name-only', tree, '--', ...paths], LITERAL);
  return new Set(splitNul(listed));
}

/** Makes the worktree's copies of `paths` what `tree` holds: restored from it, or removed when it lacks them. */
async function checkoutPaths(handle: WorkspaceHandle, tree: string, paths: readonly string[]): Promise<void> {
  const present = await presentIn(handle.path, tree, paths);
  const restore = paths.filter((path) => present.has(path));
  // --worktree only: the index keeps the tree changes() reviewed, so commit() still compares against it.
  if (restore.length > 0) await git(handle.path).raw(['restore', `--source=${tree}`, '--worktree', '--', ...restore], LITERAL);
  const files = confinedFiles(handle.path);
  for (const path of paths) if (!present.has(path)) await files.remove?.(path);
}

/**
 * Runs `run` with the base's versions of `paths` in the worktree, then puts
 * back the versions of `agentTree` (the tree changes() reviewed).
 */
export async function withBaseFiles<T>(
  handle: WorkspaceHandle,
  agentTree: string,
  paths: readonly string[],
  run: () => Promise<T>,
  testItemsOf: readonly string[] = [],
): Promise<WorkspaceResult<{ value: T }>> {
  const whole = [...new Set(paths.map(normalizeWorkspacePath))];
  const inline = [...new Set(testItemsOf.map(normalizeWorkspacePath))].filter((path) => !whole.includes(path));
  const keys = [...whole, ...inline].sort();
  try {
    await checkoutPaths(handle, handle.baseCommit, whole);
    const files = confinedFiles(handle.path);
    for (const path of inline) {
      // The attempt's code with the base's tests: a Rust file's `#[cfg(test)]` modules and `#[test]` fns.
      const current = await files.read(path);
      if (current === null) continue;
      await files.write(path, await withBaseTestItems((await readAtCommit(handle.path, handle.baseCommit, path)) ?? '', current));
    }
  } catch (error) {
    await checkoutPaths(handle, agentTree, keys).catch(() => undefined);
    return gitFailure(`Could not put the base's versions of ${keys.join(', ')} in ${handle.path}`, error, 'io');
  }
  let value: T;
  try {
    value = await run();
  } finally {
    // Whatever `run` did to these paths, the attempt's versions come back; a failure here surfaces at commit().
    await checkoutPaths(handle, agentTree, keys).catch(() => undefined);
  }
  return { ok: true, value };
}

/** Dependency directories a JavaScript or Python project installs next to its sources. */
const DEPENDENCY_DIRECTORIES = ['node_modules', '.venv', 'venv'] as const;

/**
 * The checkout's installed dependency directories that the worktree lacks:
 * real directories (a symlinked one is resolved) not tracked by git.
 */
export async function dependencyDirs(root: string, handle: WorkspaceHandle): Promise<ReadOnlyBind[]> {
  const binds: ReadOnlyBind[] = [];
  for (const name of DEPENDENCY_DIRECTORIES) {
    const source = await realpath(join(root, name)).catch(() => null);
    if (source === null || !(await lstat(source).then((stat) => stat.isDirectory(), () => false))) continue;
    const target = join(handle.path, name);
    // An empty directory is a mount point a sandboxed run left (git ignores it); anything else is the worktree's own.
    const existing = await lstat(target).catch(() => null);
    if (existing !== null && !(existing.isDirectory() && (await readdir(target)).length === 0)) continue;
    const tracked = await git(root).tryRaw(['ls-files', '-z', '--', name], LITERAL);
    if (tracked === null || tracked !== '') continue;
    binds.push({ source, target });
  }
  return binds;
}
