/**
 * Keeps every tool path inside the worktree: no `..` segments, no absolute
 * paths outside the root, no symlink that leads out, nothing under `.git/`
 * (by name or through a link); and keeps secret files out of what is read.
 */
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { isSecretDirectoryName, isSecretFileName } from '../../src/adapters/agent-sandbox/secret-files.js';

/** `real`: the workspace-relative real path of the nearest existing part (where a link inside the tree leads). */
export type GuardedPath = { ok: true; absolute: string; relative: string; real: string } | { ok: false; message: string };

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
  // The real path too: a link inside the tree (`g -> .git`) must not open the repository's metadata.
  const realRelative = path.relative(realRoot, realExisting).split(path.sep).join('/');
  if ([relative, realRelative].some((candidate) => candidate === '.git' || candidate.startsWith('.git/'))) {
    return { ok: false, message: `Path "${requested}" is inside .git; the repository's metadata is off limits.` };
  }
  return { ok: true, absolute, relative: relative === '' ? '.' : relative, real: realRelative === '' ? '.' : realRelative };
}

/**
 * Why a workspace path may not be read: a secret file or a file in a secret directory (`.env`, `*.pem`,
 * `secrets/`… — the names the agent sandbox masks), else null. Its content would go to the model.
 *
 * @example
 * ```ts
 * secretPathReason('config/.env'); // 'Path "config/.env" is a secret file (…)…'
 * secretPathReason('src/a.ts');    // null
 * ```
 */
export function secretPathReason(relative: string): string | null {
  const segments = relative.split('/').filter((segment) => segment !== '' && segment !== '.');
  const last = segments.at(-1);
  const secret = segments.slice(0, -1).some(isSecretDirectoryName) || (last !== undefined && (isSecretFileName(last) || isSecretDirectoryName(last)));
  return secret ? `Path "${relative}" is a secret file (dotenv, key, credentials); its content is never shown to the model. Read the code that uses it instead.` : null;
}
