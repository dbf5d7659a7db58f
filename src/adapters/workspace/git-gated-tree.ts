/**
 * Verification sees exactly the tree that will be committed. Two halves, both on the attempt's worktree:
 * - ignored files: a snapshot after the reset that follows the baseline run (what the base's own run left:
 *   caches, `target/`) and, before each verification run, every ignored file that is new or changed since then
 *   removed — so an ignored `conftest.py`, `sitecustomize.py` or `.pth` the implementer wrote is never seen;
 * - the source tree: after a run, anything that differs from the index (which holds the tree `changes()`
 *   reviewed) — a tracked file rewritten, a new non-ignored file — is reported and put back, so the commit holds
 *   the reviewed tree and the engine can say a test run wrote into the sources.
 * A file is "unchanged" by inode, size, mode and ctime: ctime moves on every write, rename or utime, and no
 * process can set it back.
 */
import { lstat, readdir, rm, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { splitNul } from '../../core/workspace/git-diff-parse.js';
import { git } from '../git/git-run.js';

/** Ignored file → its stamp, as the base's run left the worktree. */
export type IgnoredSnapshot = ReadonlyMap<string, string>;

const LITERAL = { GIT_LITERAL_PATHSPECS: '1' };

async function stampOf(path: string): Promise<string | null> {
  const stat = await lstat(path, { bigint: true }).catch(() => null);
  return stat === null ? null : `${stat.ino}:${stat.size}:${stat.mode}:${stat.ctimeNs}`;
}

async function ignoredFiles(directory: string): Promise<string[]> {
  // Every ignored file, one by one (no --directory): a new file inside an ignored directory the base left counts.
  return splitNul(await git(directory).raw(['ls-files', '-z', '--others', '--ignored', '--exclude-standard']));
}

/** The ignored files present now, with their stamps. */
export async function snapshotIgnored(directory: string): Promise<IgnoredSnapshot> {
  const paths = await ignoredFiles(directory);
  // Side by side: a warm build directory (`target/`, `.venv/`) holds thousands of files.
  const stamps = await Promise.all(paths.map((path) => stampOf(join(directory, path))));
  const snapshot = new Map<string, string>();
  paths.forEach((path, index) => {
    const stamp = stamps[index];
    if (stamp !== null && stamp !== undefined) snapshot.set(path, stamp);
  });
  return snapshot;
}

/** Removes directories left empty by a removal, up to (not including) the worktree root. */
async function pruneEmptyParents(directory: string, path: string): Promise<void> {
  for (let parent = dirname(path); parent !== '.' && parent !== ''; parent = dirname(parent)) {
    const absolute = join(directory, parent);
    const entries = await readdir(absolute).catch(() => null);
    if (entries === null || entries.length > 0) return;
    await rmdir(absolute).catch(() => undefined);
  }
}

/** The worktree against the index, from one `git status` (one walk of the tree for the three lists). */
interface WorktreeStatus {
  /** Tracked files modified or deleted in the worktree. */
  modified: string[];
  /** New files git does not ignore. */
  untracked: string[];
  /** Ignored files, one by one (`--untracked-files=all` lists those inside an ignored directory too). */
  ignored: string[];
}

async function worktreeStatus(directory: string): Promise<WorktreeStatus> {
  const entries = splitNul(await git(directory).raw(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignored', '--no-renames', '--ignore-submodules=all']));
  const status: WorktreeStatus = { modified: [], untracked: [], ignored: [] };
  for (const entry of entries) {
    const code = entry.slice(0, 2);
    const path = entry.slice(3);
    if (code === '??') status.untracked.push(path);
    else if (code === '!!') status.ignored.push(path);
    else if (code[1] !== ' ') status.modified.push(path);
  }
  return status;
}

/** Removes the `ignored` files not in `snapshot` or changed since; returns them (sorted). */
async function removeIgnoredWrites(directory: string, ignored: readonly string[], snapshot: IgnoredSnapshot): Promise<string[]> {
  const stamps = await Promise.all(ignored.map((path) => stampOf(join(directory, path))));
  const removed = ignored.filter((path, index) => snapshot.get(path) !== stamps[index]);
  for (const path of removed) await rm(join(directory, path), { force: true });
  for (const path of removed) await pruneEmptyParents(directory, path);
  return removed.sort();
}

/**
 * What differs from the index (the reviewed tree) in the worktree: tracked files modified or deleted, new files
 * git does not ignore. Each is put back (restored from the index, or removed); returns them (sorted).
 */
async function restoreReviewedSources(directory: string, { modified, untracked }: WorktreeStatus): Promise<string[]> {
  if (modified.length > 0) await git(directory).raw(['checkout-index', '--force', '--', ...modified], LITERAL);
  for (const path of untracked) {
    await rm(join(directory, path), { force: true });
    await pruneEmptyParents(directory, path);
  }
  return [...modified, ...untracked].sort();
}

/**
 * Back to the base exactly after the baseline run — `reset --hard` restores tracked files, `clean -fd` (no `-x`)
 * removes untracked, non-ignored ones — and the ignored files that run left, snapshotted.
 */
export async function resetToBase(directory: string, baseCommit: string): Promise<IgnoredSnapshot> {
  const worktree = git(directory);
  await worktree.raw(['reset', '--hard', '--quiet', baseCommit]);
  await worktree.raw(['clean', '-f', '-d', '--quiet']);
  return snapshotIgnored(directory);
}

/** The reviewed tree for verification: source writes put back, ignored writes since the base's snapshot removed. */
export async function restoreGatedTree(directory: string, snapshot: IgnoredSnapshot): Promise<{ removedIgnored: string[]; written: string[] }> {
  const status = await worktreeStatus(directory);
  const written = await restoreReviewedSources(directory, status);
  const removedIgnored = await removeIgnoredWrites(directory, status.ignored, snapshot);
  return { removedIgnored, written };
}
