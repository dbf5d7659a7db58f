/**
 * Keeps every tool path inside the worktree: no `..` segments, no absolute
 * paths outside the root, no symlink that leads out, nothing under `.git/`.
 */
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';

export type GuardedPath = { ok: true; absolute: string; relative: string } | { ok: false; message: string };

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

async function nearestExisting(candidate: string): Promise<string> {
  let current = candidate;
  for (;;) {
    try {
      await lstat(current);
      return current;
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return current;
      current = parent;
    }
  }
}

/**
 * Resolves `requested` against `root` and refuses anything that leaves it.
 *
 * @example
 * ```ts
 * await resolveInside('/work/tree', 'src/a.ts');     // { ok: true, absolute: '/work/tree/src/a.ts', relative: 'src/a.ts' }
 * await resolveInside('/work/tree', '../etc/passwd'); // { ok: false, message: '…' }
 * ```
 */
export async function resolveInside(root: string, requested: string): Promise<GuardedPath> {
  const wanted = requested.trim() === '' ? '.' : requested.trim();
  if (wanted.includes('\0')) return { ok: false, message: `Path "${requested}" contains a NUL byte.` };
  if (wanted.split(/[\\/]+/).includes('..')) {
    return { ok: false, message: `Path "${requested}" uses "..". Paths must stay inside the workspace; use a path relative to its root.` };
  }
  const absoluteRoot = path.resolve(root);
  const absolute = path.resolve(absoluteRoot, wanted);
  if (!isInside(absoluteRoot, absolute)) {
    return { ok: false, message: `Path "${requested}" is outside the workspace (${absoluteRoot}). Use a path relative to the workspace root.` };
  }
  const realRoot = await realpath(absoluteRoot);
  const existing = await nearestExisting(absolute);
  let realExisting: string;
  try {
    realExisting = await realpath(existing);
  } catch {
    return { ok: false, message: `Path "${requested}" goes through a broken symbolic link.` };
  }
  if (!isInside(realRoot, realExisting)) {
    return { ok: false, message: `Path "${requested}" leads outside the workspace through a symbolic link.` };
  }
  const relative = path.relative(absoluteRoot, absolute).split(path.sep).join('/');
  if (relative === '.git' || relative.startsWith('.git/')) {
    return { ok: false, message: `Path "${requested}" is inside .git; the repository's metadata is off limits.` };
  }
  return { ok: true, absolute, relative: relative === '' ? '.' : relative };
}
