/**
 * The manifest on disk (`<worktrees directory>/manifest.json`, loop-worktree's
 * format) and the low-level worktree moves that keep it true: read-modify-write
 * under an inter-process lock, recycle a finished worktree into the pool,
 * remove one for good.
 *
 * Earlier versions kept worktrees in `.loop-worktrees/` inside the checkout.
 * Our entries there (and pool slots) are adopted into the current manifest at
 * the next update: their `path` stays where the directory is, so an escalated
 * change stays approvable; entries another tool wrote stay in its manifest.
 */
import { mkdir, readdir, rm, rmdir, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import {
  type PoolSlot,
  type WorktreeEntry,
  type WorktreeManifest,
  formatManifest,
  parseManifest,
} from '../../core/workspace/worktree-manifest.js';
import { readTextOrNull, withFileLock, writeTextAtomically } from '../fs/atomic-file.js';
import { git, type GitRunner } from '../git/git-run.js';
import { LEGACY_WORKTREES_DIR, worktreesDirFor, type LocationEnv } from './worktrees-location.js';
import { processIsAlive } from '../fs/process-alive.js';

/** Worktrees of this process's ticks that are still in use (shared by every GitWorkspace in the process). */
export const liveWorktrees = new Set<string>();

export class WorktreeStore {
  readonly root: string;
  /** Absolute directory holding the worktrees, the manifest and the pool. */
  readonly directory: string;
  readonly manifestPath: string;
  readonly poolDirectory: string;
  readonly rootGit: GitRunner;
  /** `.loop-worktrees/` in the checkout when worktrees now live elsewhere (read, drained), else null. */
  readonly legacyDirectory: string | null;

  /**
   * @param worktreesDir the `worktreesDir` setting (relative to `root` or absolute); default: the state directory.
   * @example
   * ```ts
   * const store = new WorktreeStore('/repo'); // store.directory → ~/.local/state/loop-runtime/repo-<hash>/worktrees
   * ```
   */
  constructor(root: string, worktreesDir?: string | null, env?: LocationEnv) {
    this.root = resolve(root);
    this.directory = worktreesDirFor(this.root, worktreesDir, env);
    this.manifestPath = join(this.directory, 'manifest.json');
    this.poolDirectory = join(this.directory, '.pool');
    this.rootGit = git(this.root);
    const legacy = resolve(this.root, LEGACY_WORKTREES_DIR);
    this.legacyDirectory = legacy === this.directory ? null : legacy;
  }

  private get legacyManifestPath(): string | null {
    return this.legacyDirectory === null ? null : join(this.legacyDirectory, 'manifest.json');
  }

  /** Reads the manifest with the legacy directory's entries not yet adopted (missing or corrupt → empty). */
  async read(): Promise<WorktreeManifest> {
    const legacy = this.legacyManifestPath === null ? null : await readTextOrNull(this.legacyManifestPath);
    return adoptLegacy(parseManifest(await readTextOrNull(this.manifestPath)), parseManifest(legacy)).manifest;
  }

  /** Read-modify-write under the manifest's lock; `change` may run git commands. Adopts legacy entries first. */
  async update<T>(change: (manifest: WorktreeManifest) => Promise<{ manifest: WorktreeManifest; result: T }>): Promise<T> {
    await mkdir(this.directory, { recursive: true });
    return withFileLock(this.manifestPath, async () => {
      const before = await readTextOrNull(this.manifestPath);
      const legacyPath = this.legacyManifestPath;
      const legacyText = legacyPath === null ? null : await readTextOrNull(legacyPath);
      const adopted = adoptLegacy(parseManifest(before), parseManifest(legacyText));
      const { manifest, result } = await change(adopted.manifest);
      const after = formatManifest(manifest);
      if (after !== before) await writeTextAtomically(this.manifestPath, after);
      if (legacyPath !== null) await this.drainLegacy(legacyPath, legacyText === null ? null : adopted.left);
      return result;
    });
  }

  /**
   * Rewrites the legacy manifest with what is not ours, removes it when nothing is left, and removes the legacy
   * directory once its last worktree has moved out or gone (`left` null: the manifest is already gone).
   */
  private async drainLegacy(legacyPath: string, left: WorktreeManifest | null): Promise<void> {
    if (left !== null && left.worktrees.length > 0) {
      await writeTextAtomically(legacyPath, formatManifest(left));
      return;
    }
    if (left !== null) await rm(legacyPath, { force: true });
    for (const directory of [join(this.legacyDirectory!, '.pool'), this.legacyDirectory!]) await rmdir(directory).catch(() => undefined);
  }

  /** The manifest's `path` for an absolute directory: root-relative, forward slashes. */
  relativePath(absolutePath: string): string {
    const inside = relative(this.root, absolutePath);
    return isAbsolute(inside) || inside.startsWith('..') ? absolutePath : inside.split(sep).join('/');
  }

  absolutePath(manifestPath: string): string {
    return resolve(this.root, manifestPath);
  }

  entryPath(id: string): string {
    return join(this.directory, id);
  }

  /**
   * Resets a finished worktree (detached at `baseCommit` when given, else at its HEAD; no local changes, no
   * untracked or ignored files) and parks it in the pool for the next tick, or removes it when the pool is full.
   * Detached at the base its attempt started from, the next attempt on the same base only switches its branch.
   * Never throws: a worktree that cannot be recycled is removed instead.
   */
  async recycle(manifest: WorktreeManifest, worktreePath: string, poolSize: number, baseCommit?: string): Promise<WorktreeManifest> {
    if (!(await isDirectory(worktreePath))) return manifest;
    if (manifest.pool.length >= poolSize) {
      await this.remove(worktreePath);
      return manifest;
    }
    try {
      const worktree = git(worktreePath);
      await worktree.raw(['checkout', '--quiet', '--force', '--detach', ...(baseCommit ? [baseCommit] : [])]);
      await worktree.raw(['clean', '-fdxq']);
      // A full commit id checked out is the head; anything else is asked.
      const head = baseCommit && /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(baseCommit) ? baseCommit : (await worktree.raw(['rev-parse', 'HEAD'])).trim();
      await mkdir(this.poolDirectory, { recursive: true });
      const slotPath = await freePath(join(this.poolDirectory, basename(worktreePath)));
      await this.rootGit.raw(['worktree', 'move', worktreePath, slotPath]);
      const slot: PoolSlot = { path: this.relativePath(slotPath), head, clean: true };
      return { ...manifest, pool: [...manifest.pool, slot] };
    } catch {
      await this.remove(worktreePath);
      return manifest;
    }
  }

  /** Removes a worktree directory and its git registration, whatever state it is in. */
  async remove(worktreePath: string): Promise<void> {
    const removed = await this.rootGit.tryRaw(['worktree', 'remove', '--force', '--force', worktreePath]);
    if (removed === null) {
      await rm(worktreePath, { recursive: true, force: true }).catch(() => undefined);
      await this.rootGit.tryRaw(['worktree', 'prune']);
    }
  }

  /** Deletes a branch unless it is checked out somewhere or already gone. */
  async deleteBranch(branch: string): Promise<void> {
    await this.rootGit.tryRaw(['branch', '--delete', '--force', branch]);
  }

  /**
   * Directories under the worktrees directory (excluding the pool and lock
   * directories), and under the legacy directory while its manifest holds
   * nothing of another tool's.
   */
  async listDirectories(): Promise<string[]> {
    const directories = await subdirectories(this.directory);
    if (this.legacyDirectory !== null && this.legacyManifestPath !== null && (await readTextOrNull(this.legacyManifestPath)) === null) {
      directories.push(...(await subdirectories(this.legacyDirectory)));
    }
    return directories;
  }

  async listPoolDirectories(): Promise<string[]> {
    const pools = [this.poolDirectory, ...(this.legacyDirectory === null ? [] : [join(this.legacyDirectory, '.pool')])];
    return (await Promise.all(pools.map((pool) => subdirectories(pool)))).flat();
  }

  /**
   * The escalated changes that still wait for a human: entries git knows as worktrees of this repository. A manifest
   * outlives its repository (state lives outside the checkout, keyed by its path): after a repository is deleted
   * and created again at the same path, the old entries name worktrees and branches the new one does not have, and
   * must block nothing and list nothing.
   */
  async waiting(): Promise<WorktreeEntry[]> {
    const [manifest, registered] = await Promise.all([this.read(), this.registeredWorktrees()]);
    return manifest.worktrees.filter((entry) => entry.status === 'escalated' && !entry.released && registered.has(this.absolutePath(entry.path)));
  }

  /** Absolute paths git knows as worktrees of this repository. */
  async registeredWorktrees(): Promise<Set<string>> {
    const output = (await this.rootGit.tryRaw(['worktree', 'list', '--porcelain'])) ?? '';
    const paths = new Set<string>();
    for (const line of output.split('\n')) if (line.startsWith('worktree ')) paths.add(resolve(line.slice('worktree '.length)));
    return paths;
  }
}

async function subdirectories(directory: string): Promise<string[]> {
  try {
    const entries = await readdir(directory, { withFileTypes: true });
    return entries
      .filter((entry) => entry.isDirectory() && entry.name !== '.pool' && !entry.name.endsWith('.lock'))
      .map((entry) => join(directory, entry.name));
  } catch {
    return [];
  }
}

/**
 * Moves our entries (they carry a tick id) and our pool slots from the
 * legacy manifest into the current one; an id already there wins. `left` is
 * what stays in the legacy manifest: entries another tool (loop-worktree) wrote.
 */
export function adoptLegacy(current: WorktreeManifest, legacy: WorktreeManifest): { manifest: WorktreeManifest; left: WorktreeManifest } {
  const ours = legacy.worktrees.filter((entry) => entry.tickId !== undefined);
  const known = new Set(current.worktrees.map((entry) => entry.id));
  const pooled = new Set(current.pool.map((slot) => slot.path));
  return {
    manifest: {
      ...current,
      worktrees: [...current.worktrees, ...ours.filter((entry) => !known.has(entry.id))],
      pool: [...current.pool, ...legacy.pool.filter((slot) => !pooled.has(slot.path))],
    },
    left: { ...legacy, worktrees: legacy.worktrees.filter((entry) => entry.tickId === undefined), pool: [] },
  };
}

export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

async function freePath(path: string): Promise<string> {
  if (!(await isDirectory(path))) return path;
  for (let counter = 2; ; counter++) {
    const candidate = `${path}-${counter}`;
    if (!(await isDirectory(candidate))) return candidate;
  }
}

/** Whether an active entry belongs to a tick that can no longer finish it. */
export function isAbandoned(entry: WorktreeEntry, now: number, maxActiveAgeMs: number): boolean {
  if (liveWorktrees.has(entry.id)) return false;
  const created = Date.parse(entry.createdAt);
  if (Number.isFinite(created) && now - created > maxActiveAgeMs) return true;
  if (entry.pid === undefined || entry.pid === process.pid) return true;
  return !processIsAlive(entry.pid);
}
