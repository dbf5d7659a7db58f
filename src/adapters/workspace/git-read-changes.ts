/**
 * What an attempt changed, read from git in one step of GitWorkspace.changes(): the worktree staged whole
 * (`add --all`), the tree of that index — the only tree commit() will record — and the diff against the base.
 */
import type { ChangeSet, WorkspaceHandle } from '../../core/ports/index.js';
import { buildChangedFiles, capPatch, parseBinaryPaths, parseNameStatus, splitNul } from '../../core/workspace/git-diff-parse.js';
import { isBuildOutput } from '../../core/verify/ignored-files.js';
import { git } from '../git/git-run.js';

/**
 * One diff shape whatever the user's git config says: renames found, no
 * external diff or textconv (the patch shows the real bytes), no colour, and
 * `a/` `b/` prefixes even under `diff.noprefix` or `diff.mnemonicPrefix`.
 */
const DIFF_ARGS = ['diff', '--cached', '--find-renames', '--no-ext-diff', '--no-textconv', '--no-color', '--src-prefix=a/', '--dst-prefix=b/'] as const;

/**
 * Stages the worktree and reads the change against the base; throws a GitCommandError when a step fails.
 *
 * @example
 * ```ts
 * const { tree, changes } = await readChanges(handle, 200_000); // tree: the id commit() will record
 * ```
 */
export async function readChanges(handle: WorkspaceHandle, patchLimit: number): Promise<{ tree: string; changes: ChangeSet }> {
  const worktree = git(handle.path);
  // Side by side (each call is a process): `add --all` adds no ignored file, so the list is the same before and
  // after it; once it has run, the index holds the change, and its tree and the diffs only read it (git's optional
  // locks are off, see git-run.ts).
  const added = worktree.raw(['add', '--all']);
  const [listed, tree, nameStatus, numstat, patch] = await Promise.all([
    worktree.raw(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory']),
    added.then(async () => (await worktree.raw(['write-tree'])).trim()),
    added.then(() => worktree.raw([...DIFF_ARGS, '-z', '--name-status', handle.baseCommit])),
    added.then(() => worktree.raw([...DIFF_ARGS, '-z', '--numstat', handle.baseCommit])),
    added.then(() => worktree.raw([...DIFF_ARGS, handle.baseCommit])),
  ]);
  // Caches and build outputs (`__pycache__/`, `target/`, `.pytest_cache/`) are no part of a change: the gate never counts them.
  const ignored = splitNul(listed).filter((path) => !isBuildOutput(path));
  const files = buildChangedFiles(parseNameStatus(nameStatus), parseBinaryPaths(numstat), ignored);
  return { tree, changes: { files, patch: capPatch(patch, patchLimit) } };
}
