/**
 * The manifest on disk (`.loop-worktrees/manifest.json`) and the low-level
 * worktree moves that keep it true: read-modify-write under an inter-process
 * lock, recycle a finished worktree into the pool, remove one for good.
 */
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
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

/** Worktrees of this process's ticks that are still in use (shared by every GitWorkspace in the process). */
export const liveWorktrees = new Set<string>();

export class WorktreeStore {
  readonly root: string;
  /** Absolute directory holding the worktrees, the manifest and the pool. */
  readonly directory: string;
  readonly manifestPath: string;
  readonly poolDirectory: string;
  readonly rootGit: GitRunner;

  constructor(root: string, worktreesDir = '.loop-worktrees') {
    this.root = resolve(root);
    this.directory = resolve(this.root, worktreesDir);
    this.manifestPath = join(this.directory, 'manifest.json');
    this.poolDirectory = join(this.directory, '.pool');
    this.rootGit = git(this.root);
  }

  /** Reads the manifest (missing or corrupt → empty). */
  async read(): Promise<WorktreeManifest> {
    return parseManifest(await readTextOrNull(this.manifestPath));
  }

  /** Read-modify-write under the manifest's lock; `change` may run git commands. */
  async update<T>(change: (manifest: WorktreeManifest) => Promise<{ manifest: WorktreeManifest; result: T }>): Promise<T> {
    await mkdir(this.directory, { recursive: true });
    return withFileLock(this.manifestPath, async () => {
      const before = await readTextOrNull(this.manifestPath);
      const { manifest, result } = await change(parseManifest(before));
      const after = formatManifest(manifest);
      if (after !== before) await writeTextAtomically(this.manifestPath, after);
      return result;
    });
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
   * Resets a finished worktree (detached, no local changes, no untracked or
   * ignored files) and parks it in the pool for the next tick, or removes it
   * when the pool is full. Never throws: a worktree that cannot be recycled is
   * removed instead.
   */
  async recycle(manifest: WorktreeManifest, worktreePath: string, poolSize: number): Promise<WorktreeManifest> {
    if (!(await isDirectory(worktreePath))) return manifest;
    if (manifest.pool.length >= poolSize) {
      await this.remove(worktreePath);
      return manifest;
    }
    try {
      const worktree = git(worktreePath);
      await worktree.raw(['checkout', '--quiet', '--force', '--detach']);
      await worktree.raw(['clean', '-fdxq']);
      const head = (await worktree.raw(['rev-parse', 'HEAD'])).trim();
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

  /** Directories under the worktrees directory (excluding the pool and lock directories). */
  async listDirectories(): Promise<string[]> {
    try {
      const entries = await readdir(this.directory, { withFileTypes: true });
      return entries
        .filter((entry) => entry.isDirectory() && entry.name !== '.pool' && !entry.name.endsWith('.lock'))
        .map((entry) => join(this.directory, entry.name));
    } catch {
      return [];
    }
  }

  async listPoolDirectories(): Promise<string[]> {
    try {
      const entries = await readdir(this.poolDirectory, { withFileTypes: true });
      return entries.filter((entry) => entry.isDirectory()).map((entry) => join(this.poolDirectory, entry.name));
    } catch {
      return [];
    }
  }

  /** Absolute paths git knows as worktrees of this repository. */
  async registeredWorktrees(): Promise<Set<string>> {
    const output = (await this.rootGit.tryRaw(['worktree', 'list', '--porcelain'])) ?? '';
    const paths = new Set<string>();
    for (const line of output.split('\n')) if (line.startsWith('worktree ')) paths.add(resolve(line.slice('worktree '.length)));
    return paths;
  }
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

/** Whether a process with this pid is still running (EPERM means it is, but not ours). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether an active entry belongs to a tick that can no longer finish it. */
export function isAbandoned(entry: WorktreeEntry, now: number, maxActiveAgeMs: number): boolean {
  if (liveWorktrees.has(entry.id)) return false;
  const created = Date.parse(entry.createdAt);
  if (Number.isFinite(created) && now - created > maxActiveAgeMs) return true;
  if (entry.pid === undefined || entry.pid === process.pid) return true;
  return !processAlive(entry.pid);
}
