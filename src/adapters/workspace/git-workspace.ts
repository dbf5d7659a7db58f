/**
 * The git adapter of the Workspace port. Each act-attempt works in its own
 * worktree `<worktrees directory>/<id>` (outside the checkout by default, see
 * worktrees-location.ts) on branch `<prefix><id>`, recorded in a manifest in
 * loop-worktree's format. The user's main worktree is never touched: the
 * base is a commit, and every command runs inside the attempt's worktree.
 *
 * Setup is cheap on big repositories: finished worktrees are reset, cleaned
 * and parked in a small pool; the next attempt moves one into place and
 * switches its branch instead of checking out every file again.
 */
import type { BaselineCache, ChangeSet, Clock, CommitRecord, CommitRequest, ReadOnlyBind, WorkItem, Workspace, WorkspaceFiles, WorkspaceHandle, WorkspaceResult } from '../../core/ports/index.js';
import { splitNul, withTrailers } from '../../core/workspace/git-diff-parse.js';
import { makeWorktreeId, updateEntry, type PoolSlot, type WorktreeEntry } from '../../core/workspace/worktree-manifest.js';
import { confinedFiles } from './git-confined-files.js';
import { readChanges } from './git-read-changes.js';
import { stripspace } from './git-commit-message.js';
import { dependencyDirs, readAtCommit, withBaseFiles } from './git-base-files.js';
import { recoverWorktrees } from './git-recover.js';
import { fileBaselineCache } from './git-baseline-cache.js';
import { resetToBase, restoreGatedTree, type IgnoredSnapshot } from './git-gated-tree.js';
import { git, gitFailure, identityEnv } from '../git/git-run.js';
import { resolveBase, type ResolvedBase } from './git-resolve-base.js';
import { liveWorktrees, WorktreeStore } from './git-worktree-store.js';
import { excludeFromStatus, switchPooled } from './git-worktree-setup.js';

export { resolveBase, type ResolvedBase } from './git-resolve-base.js';

export interface GitWorkspaceOptions {
  /** The repository root (its main worktree). */
  root: string;
  patternId: string;
  /** Base branch when a prepare request names none; null/undefined → the branch HEAD is on. */
  baseBranch?: string | null;
  clock: Clock;
  /** The `worktreesDir` setting (relative to root or absolute); default: the user's state directory, outside the checkout. */
  worktreesDir?: string | null;
  /** Idle worktrees kept for reuse (default 2). */
  poolSize?: number;
  /** An active worktree older than this is abandoned whoever owns it (default 6 h). */
  maxActiveAgeMs?: number;
  /** Patch text cap in characters (default 200 000). */
  patchLimit?: number;
  /** Finished manifest entries kept as history (default 100). */
  historySize?: number;
  /** Resolves the base commit (the dry-run copy resolves against the user's repository). */
  resolveBase?: (baseBranch: string | null) => Promise<ResolvedBase>;
}

type PrepareRequest = Parameters<Workspace['prepare']>[0];

function refuseCommit(handle: WorkspaceHandle, why: string): WorkspaceResult<never> {
  return {
    ok: false,
    reason: 'conflict',
    message: `Refused to commit ${handle.id}: ${why}. To fix: list build and test outputs in .gitignore (a verification command may have written them), or read changes() again so the gate checks what is in ${handle.path} now.`,
    retryable: false,
  };
}

/**
 * @example
 * ```ts
 * const workspace = new GitWorkspace({ root: '/repo', patternId: 'ci-sweeper', clock: { now: Date.now } });
 * const prepared = await workspace.prepare({ tickId, patternId: 'ci-sweeper', item, branchPrefix: 'loop/ci-sweeper/', baseBranch: null });
 * // prepared.handle.path → ~/.local/state/loop-runtime/repo-<hash>/worktrees/ci-42-mhx3k2a0
 * ```
 */
export class GitWorkspace implements Workspace {
  readonly specificationVersion = 'workspace-v1' as const;
  readonly store: WorktreeStore;
  private readonly options: GitWorkspaceOptions;
  private excludeWritten = false;
  /** Per attempt: the tree the last changes() reported — the only tree commit() will record. */
  private readonly reviewed = new Map<string, string>();
  /** Per attempt: the ignored files the base's run left (see git-gated-tree.ts); none when no reset ran. */
  private readonly baseIgnored = new Map<string, IgnoredSnapshot>();
  /**
   * Attempts whose worktree restoreGatedTree compared with the index (the reviewed tree) since the last changes(),
   * putting back whatever differed: commit() then has nothing left to compare (see there). Any other step that
   * writes through this adapter forgets it.
   */
  private readonly settled = new Set<string>();

  constructor(options: GitWorkspaceOptions) {
    this.options = options;
    this.store = new WorktreeStore(options.root, options.worktreesDir);
  }

  /** Prunes what crashed ticks left: stale entries, orphan directories, dead pool slots. */
  async recover(): Promise<void> {
    await recoverWorktrees(this.store, {
      now: this.options.clock.now(),
      poolSize: this.poolSize,
      maxActiveAgeMs: this.options.maxActiveAgeMs ?? 6 * 3_600_000,
      historySize: this.options.historySize ?? 100,
    });
  }

  async prepare(request: PrepareRequest): Promise<WorkspaceResult<{ handle: WorkspaceHandle }>> {
    // Read-only and independent of the base: asked now, read after the base is known.
    const existingBranches = this.store.rootGit.tryRaw(['for-each-ref', '--format=%(refname)', `refs/heads/${request.branchPrefix}`]);
    let base: ResolvedBase;
    try {
      base = await (this.options.resolveBase ?? ((branch) => resolveBase(this.store.root, branch)))(request.baseBranch ?? this.options.baseBranch ?? null);
    } catch (error) {
      return gitFailure('Could not resolve the base commit', error, 'not-found');
    }
    try {
      if (!this.excludeWritten) this.excludeWritten = await excludeFromStatus(this.store);
    } catch (error) {
      return gitFailure('Could not prepare the worktrees directory', error, 'io');
    }
    const now = this.options.clock.now();
    const existing = await existingBranches;
    const branches = new Set((existing ?? '').split('\n').filter(Boolean));
    let entry: WorktreeEntry | undefined;
    let slot: PoolSlot | undefined;
    try {
      const claimed = await this.store.update(async (manifest) => {
        const taken = new Set(manifest.worktrees.map((candidate) => candidate.id));
        let id = makeWorktreeId(request.item.key, now, taken);
        while (branches.has(`refs/heads/${request.branchPrefix}${id}`)) {
          taken.add(id);
          id = makeWorktreeId(request.item.key, now, taken);
        }
        const path = this.store.entryPath(id);
        const created: WorktreeEntry = {
          id,
          path: this.store.relativePath(path),
          branch: `${request.branchPrefix}${id}`,
          baseBranch: base.branch,
          pattern: request.patternId,
          createdAt: new Date(now).toISOString(),
          status: 'active',
          itemKey: request.item.key,
          itemTitle: request.item.title,
          tickId: request.tickId,
          baseCommit: base.commit,
          pid: process.pid,
        };
        // Prefer an idle worktree already at the base: switching its branch touches no file.
        const pool = [...manifest.pool];
        const index = Math.max(pool.findIndex((candidate) => candidate.head === base.commit && candidate.clean), pool.length ? 0 : -1);
        let taken_: PoolSlot | undefined;
        if (index >= 0) {
          taken_ = pool.splice(index, 1)[0];
          // Moved under the lock so a concurrent recover never sees it as an orphan.
          const moved = taken_ ? await this.store.rootGit.tryRaw(['worktree', 'move', this.store.absolutePath(taken_.path), path]) : null;
          if (moved === null) {
            if (taken_) await this.store.remove(this.store.absolutePath(taken_.path));
            taken_ = undefined;
          }
        }
        liveWorktrees.add(id);
        return { manifest: { ...manifest, pool, worktrees: [...manifest.worktrees, created] }, result: { entry: created, slot: taken_ } };
      });
      entry = claimed.entry;
      slot = claimed.slot;
      const path = this.store.absolutePath(entry.path);
      if (slot) await switchPooled(path, slot, entry.branch, base.commit);
      else await this.store.rootGit.raw(['worktree', 'add', '--quiet', '-b', entry.branch, path, base.commit]);
      const handle: WorkspaceHandle = { id: entry.id, path, branch: entry.branch, baseCommit: base.commit, itemKey: request.item.key };
      return { ok: true, handle };
    } catch (error) {
      if (entry) await this.finish(entry.id, entry.branch, 'stale', 'setup failed', true);
      return gitFailure('Could not set up the worktree', error);
    }
  }

  files(handle: WorkspaceHandle): WorkspaceFiles {
    // A write through the port after the last comparison with the reviewed tree: commit() compares again.
    return confinedFiles(handle.path, { onWrite: () => this.settled.delete(handle.id) });
  }

  /** The base's files: read one; run with the base's versions of `paths` (the reviewed tree comes back after). */
  readBase(handle: WorkspaceHandle, path: string): Promise<string | null> {
    return readAtCommit(handle.path, handle.baseCommit, path);
  }
  async withBaseFiles<T>(handle: WorkspaceHandle, paths: readonly string[], run: () => Promise<T>, options?: { testItemsOf?: readonly string[] }): Promise<WorkspaceResult<{ value: T }>> {
    const reviewed = this.reviewed.get(handle.id);
    this.settled.delete(handle.id);
    return reviewed === undefined ? refuseCommit(handle, 'changes() was never read, so no reviewed tree can be restored after the base tests') : withBaseFiles(handle, reviewed, paths, run, options?.testItemsOf);
  }
  /** Back to the base exactly after the baseline run (git-gated-tree.ts), the ignored files it left remembered. */
  async resetToBase(handle: WorkspaceHandle): Promise<WorkspaceResult<{}>> {
    try {
      this.settled.delete(handle.id);
      const snapshot = await resetToBase(handle.path, handle.baseCommit);
      this.reviewed.delete(handle.id);
      this.baseIgnored.set(handle.id, snapshot);
      return { ok: true };
    } catch (error) {
      return gitFailure(`Could not reset ${handle.path} to the base ${handle.baseCommit.slice(0, 12)} after the baseline run`, error);
    }
  }
  /** Verification judges the reviewed tree: ignored writes since the base removed, source writes put back. */
  async restoreGatedTree(handle: WorkspaceHandle): Promise<WorkspaceResult<{ removedIgnored: string[]; written: string[] }>> {
    if (!this.reviewed.has(handle.id)) return refuseCommit(handle, 'changes() was never read, so there is no reviewed tree to verify');
    this.settled.delete(handle.id);
    try {
      const restored = await restoreGatedTree(handle.path, this.baseIgnored.get(handle.id) ?? new Map());
      this.settled.add(handle.id);
      return { ok: true, ...restored };
    } catch (error) {
      return gitFailure(`Could not put ${handle.path} back to the reviewed tree for verification`, error, 'io');
    }
  }
  /** Base results across ticks, in the checkout's `.loop-runtime/` (see git-baseline-cache.ts). */
  baselineCache(): BaselineCache {
    return fileBaselineCache(this.store.root);
  }
  /** The checkout's node_modules / .venv / venv, for commands to see read-only (never copied). */
  dependencyDirs(handle: WorkspaceHandle): Promise<ReadOnlyBind[]> {
    return dependencyDirs(this.store.root, handle);
  }

  async changes(handle: WorkspaceHandle): Promise<WorkspaceResult<{ changes: ChangeSet }>> {
    this.settled.delete(handle.id);
    try {
      const { tree, changes } = await readChanges(handle, this.options.patchLimit ?? 200_000);
      this.reviewed.set(handle.id, tree);
      return { ok: true, changes };
    } catch (error) {
      this.reviewed.delete(handle.id);
      return gitFailure(`Could not read the changes in ${handle.path}`, error);
    }
  }

  /** Commits the tree the last changes() read; refuses when the worktree differs from it now (unless a restoreGatedTree since then compared and put it back). */
  async commit(handle: WorkspaceHandle, request: CommitRequest): Promise<WorkspaceResult<{ commit: CommitRecord }>> {
    const worktree = git(handle.path);
    const reviewed = this.reviewed.get(handle.id);
    if (reviewed === undefined) return refuseCommit(handle, 'changes() was never read for it, so nothing was checked');
    try {
      // The commit records the reviewed tree by its id whatever the worktree holds; this pass says whether the
      // worktree still agrees. After a restoreGatedTree since changes() it does: that status compared every file
      // with the index (the reviewed tree) and put back what differed — the same pass again would find the same.
      if (!this.settled.has(handle.id)) {
        await worktree.raw(['add', '--all']);
        const tree = (await worktree.raw(['write-tree'])).trim();
        if (tree !== reviewed) {
          const moved = splitNul(await worktree.raw(['diff-tree', '-r', '-z', '--name-only', '--no-renames', reviewed, tree]));
          return refuseCommit(handle, `${moved.join(', ') || 'its files'} changed after changes() was read (by a verification command or a still-running agent?), so the commit would hold files nobody checked`);
        }
      }
      // The reviewed tree itself, committed with plumbing: `git commit` would refresh the index over every file a
      // second time, and run the repository's prepare-commit-msg and post-commit hooks in the attempt's worktree
      // (--no-verify skips neither), which may rewrite the message and its trailers.
      const message = stripspace(withTrailers(request.message, request.trailers));
      const sha = (await worktree.raw(['commit-tree', '--no-gpg-sign', reviewed, '-p', 'HEAD', '-m', message], identityEnv(request.author))).trim();
      await worktree.raw(['update-ref', '-m', `commit: ${message.split('\n')[0] ?? ''}`, 'HEAD', sha]);
      this.reviewed.delete(handle.id);
      this.baseIgnored.delete(handle.id);
      this.settled.delete(handle.id);
      await this.store.update(async (manifest) => ({
        manifest: updateEntry(manifest, handle.id, { status: 'merged', commit: sha, updatedAt: this.stamp() }),
        result: undefined,
      }));
      liveWorktrees.delete(handle.id);
      return { ok: true, commit: { sha, branch: handle.branch } };
    } catch (error) {
      return gitFailure(`Could not commit in ${handle.path}`, error);
    }
  }

  /** Rejected or failed: the worktree goes back to the pool (or away) and the branch is deleted. */
  async discard(handle: WorkspaceHandle): Promise<void> {
    this.reviewed.delete(handle.id);
    this.baseIgnored.delete(handle.id);
    this.settled.delete(handle.id);
    await this.finish(handle.id, handle.branch, 'rejected', undefined, true);
  }

  /** Escalated: the worktree and branch stay for a human (`loop-runtime approve|reject <id>`). */
  async keep(handle: WorkspaceHandle, reason: string): Promise<void> {
    this.reviewed.delete(handle.id);
    this.baseIgnored.delete(handle.id);
    this.settled.delete(handle.id);
    await this.store.update(async (manifest) => ({
      manifest: updateEntry(manifest, handle.id, { status: 'escalated', reason, updatedAt: this.stamp() }),
      result: undefined,
    }));
    liveWorktrees.delete(handle.id);
  }

  private get poolSize(): number {
    return this.options.poolSize ?? 2;
  }

  private stamp(): string {
    return new Date(this.options.clock.now()).toISOString();
  }

  /** Marks an entry finished, recycles its worktree and deletes its branch. Never throws. */
  private async finish(id: string, branch: string, status: 'rejected' | 'stale', reason: string | undefined, deleteBranch: boolean): Promise<void> {
    liveWorktrees.delete(id);
    try {
      await this.store.update(async (manifest) => {
        const entry = manifest.worktrees.find((candidate) => candidate.id === id);
        let next = manifest;
        if (entry) next = await this.store.recycle(next, this.store.absolutePath(entry.path), this.poolSize, entry.baseCommit);
        if (deleteBranch) await this.store.deleteBranch(branch);
        next = updateEntry(next, id, { status, released: true, updatedAt: this.stamp(), ...(reason ? { reason } : {}) });
        return { manifest: next, result: undefined };
      });
    } catch {
      // recover() at the next tick cleans up whatever is left.
    }
  }
}
