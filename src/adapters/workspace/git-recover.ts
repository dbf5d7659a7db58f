/**
 * What `GitWorkspace.recover()` does at the start of each act-tick: bring the
 * manifest, git's worktree list and the directories on disk back into
 * agreement after a crash, so nothing a crash leaves can fail the next tick.
 */
import { resolve } from 'node:path';
import { holdsDirectory, pruneHistory, updateEntry as withEntry, type WorktreeManifest } from '../../core/workspace/worktree-manifest.js';
import { isAbandoned, isDirectory, type WorktreeStore } from './git-worktree-store.js';

export interface RecoverOptions {
  now: number;
  poolSize: number;
  maxActiveAgeMs: number;
  /** Finished entries kept as history. */
  historySize: number;
}

export interface RecoverReport {
  stale: string[];
  recycled: string[];
  removedDirectories: string[];
}

/**
 * - `git worktree prune` (registrations whose directory is gone);
 * - active entries of a dead or earlier tick → stale (worktree recycled, branch deleted);
 * - escalated entries whose directory is gone, or is no worktree of this repository (the repository was deleted and
 *   created again at the same path, and the manifest outside the checkout outlived it) → stale;
 * - committed (merged) entries → their worktree is recycled into the pool, the branch stays;
 * - directories with no entry, and pool slots git no longer knows → removed.
 */
export async function recoverWorktrees(store: WorktreeStore, options: RecoverOptions): Promise<RecoverReport> {
  const report: RecoverReport = { stale: [], recycled: [], removedDirectories: [] };
  // Also the test that the root is a repository at all: outside one there is nothing to recover.
  if ((await store.rootGit.tryRaw(['worktree', 'prune'])) === null) return report;
  await store.update(async (current) => {
    let manifest: WorktreeManifest = current;
    const stamp = new Date(options.now).toISOString();
    const known = await store.registeredWorktrees();
    for (const entry of current.worktrees) {
      if (!holdsDirectory(entry)) continue;
      const path = store.absolutePath(entry.path);
      const exists = await isDirectory(path);
      const abandoned = entry.status === 'active' && isAbandoned(entry, options.now, options.maxActiveAgeMs);
      const foreign = entry.status === 'escalated' && exists && !known.has(path);
      if (foreign) {
        // Another repository's worktree (this path's earlier life): not ours to reuse, and its branch is not here.
        await store.remove(path);
        manifest = withEntry(manifest, entry.id, { status: 'stale', released: true, updatedAt: stamp, reason: 'not a worktree of this repository (it was created again at this path)' });
        report.stale.push(entry.id);
      } else if (abandoned || (entry.status === 'escalated' && !exists)) {
        if (exists) manifest = await store.recycle(manifest, path, options.poolSize, entry.baseCommit);
        await store.deleteBranch(entry.branch);
        manifest = withEntry(manifest, entry.id, { status: 'stale', released: true, updatedAt: stamp, reason: abandoned ? 'abandoned by a crashed or stopped tick' : 'worktree directory missing' });
        report.stale.push(entry.id);
      } else if (entry.status === 'merged') {
        if (exists) manifest = await store.recycle(manifest, path, options.poolSize, entry.baseCommit);
        manifest = withEntry(manifest, entry.id, { released: true, updatedAt: stamp });
        report.recycled.push(entry.id);
      } else if (!exists) {
        // An active entry of a live tick in another process whose directory is not there yet: leave it.
      }
    }

    // No second `worktree list`: a slot recycled above was just moved there by git, and nothing above touched the
    // slots that were already parked, so git's list from the start of this update still speaks for them.
    const parkedBefore = new Set(current.pool.map((slot) => slot.path));
    const pool = [];
    for (const slot of manifest.pool) {
      const path = store.absolutePath(slot.path);
      if (!parkedBefore.has(slot.path) || ((await isDirectory(path)) && known.has(path))) pool.push(slot);
      else await store.remove(path);
    }
    manifest = { ...manifest, pool };

    const held = new Set(manifest.worktrees.filter(holdsDirectory).map((entry) => store.absolutePath(entry.path)));
    for (const directory of await store.listDirectories()) {
      if (held.has(resolve(directory))) continue;
      await store.remove(directory);
      report.removedDirectories.push(directory);
    }
    const pooled = new Set(manifest.pool.map((slot) => store.absolutePath(slot.path)));
    for (const directory of await store.listPoolDirectories()) {
      if (pooled.has(resolve(directory))) continue;
      await store.remove(directory);
      report.removedDirectories.push(directory);
    }
    return { manifest: pruneHistory(manifest, options.historySize), result: undefined };
  });
  // No `worktree prune` after: every directory removed above went through store.remove, which unregisters it.
  return report;
}
