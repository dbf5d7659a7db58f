/**
 * An escalated change outside the worktree that holds it. A fleet tick that
 * escalates keeps its worktree on one worker's disk; the human may decide
 * days later, when that worker is gone. So the tick captures the change —
 * its worktree entry and the text of every file it changed — into the
 * approval workflow's input, and the worker that acts on the decision
 * re-creates the worktree from it when its own disk does not hold it.
 *
 * Fail closed: a change with binary files (not carried), or whose base
 * commit this clone lacks, is not re-created — applying part of a change a
 * human approved as a whole would commit something nobody saw.
 */
import { existsSync } from 'node:fs';
import { LoopRuntimeError } from '../core/errors.js';
import type { Clock, WorkspaceHandle } from '../core/ports/index.js';
import type { WorktreeEntry } from '../core/workspace/worktree-manifest.js';
import { git } from '../adapters/git/git-run.js';
import type { WorktreeStore } from '../adapters/workspace/git-worktree-store.js';
import { worktreeStoreFor } from '../composition/project-adapters.js';
import { bareGitWorkspace } from '../composition/wiring.js';
import type { KeptChange } from './approval-types.js';

export interface KeptChangeLocation {
  root: string;
  worktreesDir: string | null;
  clock: Clock;
}

function handleOf(store: WorktreeStore, entry: WorktreeEntry, baseCommit: string): WorkspaceHandle {
  return { id: entry.id, path: store.absolutePath(entry.path), branch: entry.branch, baseCommit, itemKey: entry.itemKey ?? entry.id };
}

/**
 * The change a tick kept for a human, read from this worker's disk; null
 * when the tick kept none (an escalation before any worktree, e.g. an open
 * circuit).
 *
 * @example
 * ```ts
 * const change = await captureKeptChange({ root, worktreesDir: null, clock }, result.tickId, 'worker-a');
 * ```
 */
export async function captureKeptChange(location: KeptChangeLocation, tickId: string, keptBy: string): Promise<KeptChange | null> {
  const store = worktreeStoreFor(location.root, location.worktreesDir);
  const entry = (await store.read()).worktrees.find((candidate) => candidate.tickId === tickId && candidate.status === 'escalated' && !candidate.released);
  if (!entry) return null;
  const baseCommit = entry.baseCommit ?? (await git(store.absolutePath(entry.path)).raw(['merge-base', 'HEAD', entry.baseBranch ?? 'HEAD'])).trim();
  const workspace = bareGitWorkspace({ root: location.root, patternId: entry.pattern, baseBranch: entry.baseBranch ?? null, clock: location.clock, worktreesDir: location.worktreesDir });
  const handle = handleOf(store, entry, baseCommit);
  const changed = await workspace.changes(handle);
  if (!changed.ok) throw new LoopRuntimeError('WORKSPACE_FAILED', `Could not read the kept change ${entry.id}: ${changed.message}`, { fix: `check ${handle.path}.` });
  const files: Record<string, string | null> = {};
  const binary: string[] = [];
  const reader = workspace.files(handle);
  for (const file of changed.changes.files) {
    if (file.binary) binary.push(file.path);
    else files[file.path] = await reader.read(file.path);
    if (file.from) files[file.from] = null;
  }
  return {
    id: entry.id,
    pattern: entry.pattern,
    itemKey: entry.itemKey ?? entry.id,
    itemTitle: entry.itemTitle ?? null,
    tickId,
    branch: entry.branch,
    baseBranch: entry.baseBranch ?? null,
    baseCommit,
    reason: entry.reason ?? null,
    createdAt: entry.createdAt,
    keptBy,
    files,
    binary,
  };
}

/** True when this disk holds the change, waiting (its manifest entry escalated, its worktree present). */
export async function holdsKeptChange(location: KeptChangeLocation, change: KeptChange): Promise<boolean> {
  const store = worktreeStoreFor(location.root, location.worktreesDir);
  const entry = (await store.read()).worktrees.find((candidate) => candidate.id === change.id && candidate.status === 'escalated' && !candidate.released);
  return entry !== undefined && existsSync(store.absolutePath(entry.path));
}

/**
 * Makes this disk hold the change: nothing to do when it does; otherwise a
 * worktree on the change's branch at its base commit, its files written, its
 * manifest entry escalated again. Throws a coded error (with the fix) when
 * the change cannot be re-created whole.
 *
 * @example
 * ```ts
 * await ensureKeptChange({ root, worktreesDir: null, clock }, input.change, 'worker-b');
 * await approveChange(project, input.change.id, options);
 * ```
 */
export async function ensureKeptChange(location: KeptChangeLocation, change: KeptChange, worker: string): Promise<'held' | 'recreated'> {
  if (await holdsKeptChange(location, change)) return 'held';
  const store = worktreeStoreFor(location.root, location.worktreesDir);
  const where = `${change.id} (kept by ${change.keptBy})`;
  if (change.binary.length > 0) {
    throw new LoopRuntimeError('WORKSPACE_FAILED', `The escalated change ${where} is not on ${worker}'s disk, and its binary files (${change.binary.join(', ')}) were not carried with it.`, {
      fix: `decide on it on ${change.keptBy} (start that worker again), or reject it.`,
    });
  }
  const hasBase = await store.rootGit.tryRaw(['cat-file', '-e', `${change.baseCommit}^{commit}`]);
  if (hasBase === null) {
    throw new LoopRuntimeError('WORKSPACE_FAILED', `The escalated change ${where} is not on ${worker}'s disk, and its base commit ${change.baseCommit.slice(0, 12)} is not in ${location.root} there.`, {
      fix: `run \`git -C ${location.root} fetch\` on ${worker} and decide again, or reject it.`,
    });
  }
  const path = store.entryPath(change.id);
  // A worktree whose directory vanished is still registered with git until pruned.
  await store.rootGit.tryRaw(['worktree', 'prune']);
  await store.update(async (manifest) => {
    await store.rootGit.raw(['worktree', 'add', '--quiet', '-B', change.branch, path, change.baseCommit]);
    const entry: WorktreeEntry = {
      id: change.id,
      path: store.relativePath(path),
      branch: change.branch,
      baseBranch: change.baseBranch,
      pattern: change.pattern,
      createdAt: change.createdAt,
      status: 'escalated',
      itemKey: change.itemKey,
      ...(change.itemTitle ? { itemTitle: change.itemTitle } : {}),
      tickId: change.tickId,
      baseCommit: change.baseCommit,
      ...(change.reason ? { reason: change.reason } : {}),
      updatedAt: new Date(location.clock.now()).toISOString(),
    };
    return { manifest: { ...manifest, worktrees: [...manifest.worktrees.filter((candidate) => candidate.id !== change.id), entry] }, result: undefined };
  });
  const workspace = bareGitWorkspace({ root: location.root, patternId: change.pattern, baseBranch: change.baseBranch, clock: location.clock, worktreesDir: location.worktreesDir });
  const files = workspace.files(handleOf(store, { id: change.id, path, branch: change.branch, baseBranch: change.baseBranch, pattern: change.pattern, createdAt: change.createdAt, status: 'escalated' }, change.baseCommit));
  for (const [file, text] of Object.entries(change.files)) {
    if (text === null) await files.remove?.(file);
    else await files.write(file, text);
  }
  return 'recreated';
}
