/**
 * Read-only dependency directories for one command (`CommandRunOptions.readOnlyBinds`):
 * the checkout's `node_modules` seen inside a worktree without copying it.
 * Under bubblewrap the directory is bind-mounted read-only, which needs an
 * empty mount point; without a sandbox it is a symbolic link. Either is
 * created only where nothing exists, removed when the last command using it
 * ends, and never left for `changes()` to see (git ignores empty directories;
 * the link is gone before anyone reads the worktree again).
 */
import { lstat, mkdir, readdir, rmdir, symlink, unlink } from 'node:fs/promises';
import type { ReadOnlyBind } from '../../core/ports/index.js';

/** Commands currently using a created path, so concurrent runs in one worktree share it. */
const inUse = new Map<string, number>();

async function isEmptyDirectory(path: string): Promise<boolean> {
  const stat = await lstat(path).catch(() => null);
  return stat !== null && stat.isDirectory() && (await readdir(path)).length === 0;
}

/**
 * Runs `run` with each bind's `target` present: an empty directory (`mount-point`, for a bind mount) or a
 * symbolic link to `source` (`symlink`). A target that already holds something is left alone and skipped.
 * Returns the binds that were put in place.
 */
export async function withDependencyBinds<T>(binds: readonly ReadOnlyBind[], mode: 'mount-point' | 'symlink', run: (placed: ReadOnlyBind[]) => Promise<T>): Promise<T> {
  const placed: ReadOnlyBind[] = [];
  const created: string[] = [];
  try {
    for (const bind of binds) {
      const shared = inUse.get(bind.target);
      const existing = await lstat(bind.target).catch(() => null);
      if (shared === undefined && existing !== null && !(mode === 'mount-point' && (await isEmptyDirectory(bind.target)))) continue;
      if (shared === undefined && existing === null) {
        if (mode === 'symlink') await symlink(bind.source, bind.target, 'dir');
        else await mkdir(bind.target);
      }
      inUse.set(bind.target, (shared ?? 0) + 1);
      created.push(bind.target);
      placed.push(bind);
    }
    return await run(placed);
  } finally {
    for (const target of created) {
      const left = (inUse.get(target) ?? 1) - 1;
      if (left > 0) {
        inUse.set(target, left);
        continue;
      }
      inUse.delete(target);
      const stat = await lstat(target).catch(() => null);
      if (stat?.isSymbolicLink()) await unlink(target).catch(() => undefined);
      else if (stat?.isDirectory()) await rmdir(target).catch(() => undefined);
    }
  }
}
