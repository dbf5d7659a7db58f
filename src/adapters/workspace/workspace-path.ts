/**
 * The shape check every workspace applies to a path before it touches a
 * file: relative, inside, not into git's own files. Pure (no node:path), so
 * the memory and git workspaces refuse exactly the same paths.
 */
import { LoopRuntimeError } from '../../core/errors.js';

/**
 * Checks a workspace-relative path's shape and returns its segments
 * (`./` and empty segments dropped, `\` read as `/`). Throws a
 * `LoopRuntimeError` (`WORKSPACE_FAILED`) for a path that is absolute,
 * climbs with `..`, names `.git`, names nothing, or holds a NUL byte.
 *
 * @example
 * ```ts
 * checkRelativePath('src/./a.ts'); // → ['src', 'a.ts']
 * checkRelativePath('../escape');  // throws: it climbs out with ".."
 * ```
 */
export function checkRelativePath(path: string): string[] {
  const normalized = path.replace(/\\/g, '/');
  const segments = normalized.split('/').filter((segment) => segment !== '' && segment !== '.');
  const refuse = (why: string) =>
    new LoopRuntimeError('WORKSPACE_FAILED', `Refused workspace path ${JSON.stringify(path)}: ${why}.`, {
      fix: 'use a path relative to the workspace root, inside it.',
    });
  if (normalized.includes('\0')) throw refuse('it contains a NUL byte');
  if (normalized.startsWith('/') || /^[A-Za-z]:/.test(normalized)) throw refuse('it is absolute');
  if (segments.length === 0) throw refuse('it names no file');
  if (segments.includes('..')) throw refuse('it climbs out with ".."');
  if (segments.some((segment) => segment.toLowerCase() === '.git')) throw refuse("it reaches into git's own files");
  return segments;
}

/** The canonical form of a workspace path (`src/./a.ts` → `src/a.ts`); throws as `checkRelativePath`. */
export function normalizeWorkspacePath(path: string): string {
  return checkRelativePath(path).join('/');
}
