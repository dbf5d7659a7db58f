/**
 * Where a repository's loop worktrees live. By default outside the checkout,
 * in the user's state directory (`$XDG_STATE_HOME/loop-runtime/<checkout>-<hash>/worktrees`,
 * `~/.local/state/...` when XDG_STATE_HOME is unset), because anything inside
 * the checkout is found by the project's own tools: `node --test` (Node 20
 * walks into `.git/` too), jest, vitest, tsc, eslint, ripgrep. The
 * `worktreesDir` setting in LOOP.md's `loop-runtime:` block puts them anywhere
 * else (relative to the checkout, or absolute); `.loop-worktrees` restores
 * loop-worktree's own place. See DESIGN.md, the decision of 2026-11-24.
 */
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';

/** loop-worktree's directory inside the checkout: where earlier versions kept worktrees, still read. */
export const LEGACY_WORKTREES_DIR = '.loop-worktrees';

/** Environment the location depends on (tests point XDG_STATE_HOME at a temporary directory). */
export type LocationEnv = Record<string, string | undefined>;

/**
 * `$XDG_STATE_HOME/loop-runtime` (an XDG_STATE_HOME that is not absolute is
 * ignored, as the spec says), else `~/.local/state/loop-runtime`.
 *
 * @example
 * ```ts
 * stateRoot({ XDG_STATE_HOME: '/var/state' }); // → '/var/state/loop-runtime'
 * ```
 */
export function stateRoot(env: LocationEnv = process.env): string {
  const configured = env['XDG_STATE_HOME'];
  const base = configured && isAbsolute(configured) ? configured : join(env['HOME'] || homedir(), '.local', 'state');
  return join(base, 'loop-runtime');
}

function realOrResolved(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
}

/**
 * The per-checkout directory in the state root: the checkout's name (readable)
 * plus a hash of its real path (unique), e.g. `my-app-3f2a9c1b0d4e`.
 *
 * @example
 * ```ts
 * checkoutStateDir('/src/my-app', { XDG_STATE_HOME: '/s' }); // → '/s/loop-runtime/my-app-<12 hex>'
 * ```
 */
export function checkoutStateDir(root: string, env: LocationEnv = process.env): string {
  const real = realOrResolved(root);
  const slug = basename(real).toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[-.]+|-+$/g, '').slice(0, 40) || 'repo';
  const hash = createHash('sha256').update(real).digest('hex').slice(0, 12);
  return join(stateRoot(env), `${slug}-${hash}`);
}

/**
 * The absolute worktrees directory of a checkout: `configured` (the
 * `worktreesDir` setting, relative to the checkout or absolute, `~/` expanded)
 * or the default in the state directory.
 *
 * @example
 * ```ts
 * worktreesDirFor('/src/app', '.loop-worktrees'); // → '/src/app/.loop-worktrees'
 * worktreesDirFor('/src/app', undefined, { XDG_STATE_HOME: '/s' }); // → '/s/loop-runtime/app-<hash>/worktrees'
 * ```
 */
export function worktreesDirFor(root: string, configured?: string | null, env: LocationEnv = process.env): string {
  if (configured) {
    const expanded = configured === '~' || configured.startsWith('~/') ? join(env['HOME'] || homedir(), configured.slice(1)) : configured;
    return resolve(root, expanded);
  }
  return join(checkoutStateDir(root, env), 'worktrees');
}

/**
 * Every directory that holds (or held) a checkout's worktrees, for sandboxes
 * to hide from commands and triage: the state root (every repository's
 * default worktrees), the legacy `.loop-worktrees`, and a configured place.
 *
 * @example
 * ```ts
 * worktreeHidingPaths('/src/app', 'wt'); // → ['~/.local/state/loop-runtime', '/src/app/.loop-worktrees', '/src/app/wt']
 * ```
 */
export function worktreeHidingPaths(root: string, configured?: string | null, env: LocationEnv = process.env): string[] {
  const paths = [stateRoot(env), resolve(root, LEGACY_WORKTREES_DIR)];
  if (configured) paths.push(worktreesDirFor(root, configured, env));
  return [...new Set(paths)];
}
