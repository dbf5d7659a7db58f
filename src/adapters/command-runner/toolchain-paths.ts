/**
 * Which host directories a verification command may read besides its
 * worktree: the system paths, the toolchains found through PATH and the
 * toolchain variables (wherever the user installed them), and the
 * dependency directories with what their scripts point at.
 *
 * Every candidate passes `isSafeReadableRoot`: never `/`, the home directory
 * or an ancestor of it, nor a directory holding the checkout or the state
 * root — a PATH entry like `~/bin` must not expose the home.
 */
import { access, readFile, realpath } from 'node:fs/promises';
import { basename, delimiter, dirname, isAbsolute, join } from 'node:path';
import { isSafeReadableRoot, SYSTEM_READABLE_PATHS } from '../../core/sandbox/verification-profile.js';
import type { ReadOnlyBind } from '../../core/ports/index.js';
import { findExecutable } from './sandbox-host.js';

/** Executables whose installation prefix (the directory above their `bin`) is bound: npm lives in node's `lib`. */
const PREFIX_TOOLS = ['node', 'python3', 'python', 'go', 'cargo', 'rustc', 'rustup', 'deno', 'bun', 'ruby', 'java'];

async function real(path: string): Promise<string | null> {
  try {
    return await realpath(path);
  } catch {
    return null;
  }
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** The prefix of an executable: `/opt/node/bin/node` → `/opt/node`; a pyenv shim → the pyenv root. */
function prefixOf(executable: string): string {
  const directory = dirname(executable);
  return ['bin', 'sbin', 'shims'].includes(basename(directory)) ? dirname(directory) : directory;
}

/** Directories right under the home that are a toolchain's own; any other (`~/.local`, `~/.config`) is never a prefix. */
const HOME_TOOLCHAIN_DIRECTORIES = new Set(['.cargo', '.rustup', '.pyenv', '.nvm', '.volta', '.bun', '.deno', '.rbenv', '.asdf', '.sdkman', '.go']);

/** A toolchain prefix, unless it is a shared directory of the home (`~/.local/bin/node` → only `~/.local/bin`). */
function toolchainPrefix(executable: string, home: string): string | null {
  const prefix = prefixOf(executable);
  return dirname(prefix) === home && !HOME_TOOLCHAIN_DIRECTORIES.has(basename(prefix)) ? null : prefix;
}

export interface ToolchainPathsInput {
  env: Record<string, string | undefined>;
  home: string;
  /** Never exposed, nor any directory holding them: the checkout, the state root. */
  protectedRoots: readonly string[];
}

/**
 * The host paths to bind read-only for a verification command (real paths, existing, safe).
 *
 * @example
 * ```ts
 * await toolchainPaths({ env: process.env, home: '/root', protectedRoots: [checkout] });
 * // ['/usr', '/bin', …, '/usr/local/go/bin', '/usr/local/go', '/root/.cargo/bin', '/root/.cargo', '/root/.rustup']
 * ```
 */
export async function toolchainPaths(input: ToolchainPathsInput): Promise<string[]> {
  const { env, home } = input;
  const candidates: string[] = [...SYSTEM_READABLE_PATHS];
  // Every PATH directory, so a tool the command calls by name is there.
  for (const directory of (env.PATH ?? '').split(delimiter)) if (isAbsolute(directory)) candidates.push(directory);
  // And each known toolchain's whole prefix: npm in node's lib, python's stdlib, GOROOT, a pyenv root.
  for (const tool of PREFIX_TOOLS) {
    const found = await findExecutable(tool, env);
    if (!found) continue;
    const resolved = await real(found);
    for (const prefix of [toolchainPrefix(found, home), resolved ? toolchainPrefix(resolved, home) : null]) if (prefix) candidates.push(prefix);
  }
  const rustFound = (await findExecutable('cargo', env)) ?? (await findExecutable('rustup', env));
  const goFound = await findExecutable('go', env);
  candidates.push(...[env.CARGO_HOME, env.RUSTUP_HOME, env.GOROOT, env.GOMODCACHE, env.PYENV_ROOT, env.VOLTA_HOME].filter((value): value is string => !!value && isAbsolute(value)));
  if (rustFound) candidates.push(env.CARGO_HOME ?? join(home, '.cargo'), env.RUSTUP_HOME ?? join(home, '.rustup'));
  // The module cache, not GOPATH itself: GOPATH/src may hold the user's other projects.
  if (goFound) for (const gopath of (env.GOPATH ?? join(home, 'go')).split(delimiter)) if (isAbsolute(gopath)) candidates.push(join(gopath, 'pkg', 'mod'));
  return safeExisting(candidates, input);
}

/**
 * What dependency binds need besides their mount inside the worktree: the source itself at its own
 * path (a venv's scripts carry absolute shebangs `#!<checkout>/.venv/bin/python`) and a venv's base
 * interpreter (`home = …` in `pyvenv.cfg`).
 */
export async function dependencyPaths(binds: readonly ReadOnlyBind[], input: ToolchainPathsInput): Promise<string[]> {
  const candidates: string[] = [];
  for (const bind of binds) {
    const config = await readFile(join(bind.source, 'pyvenv.cfg'), 'utf8').catch(() => null);
    if (config === null) continue;
    // Only the venv is shown at the checkout's path, never its parent.
    candidates.push(bind.source);
    const base = /^\s*home\s*=\s*(.+?)\s*$/m.exec(config)?.[1];
    if (base && isAbsolute(base)) {
      const resolved = (await real(join(base, 'python3'))) ?? (await real(join(base, 'python')));
      for (const prefix of [toolchainPrefix(join(base, 'python'), input.home), resolved ? toolchainPrefix(resolved, input.home) : null]) if (prefix) candidates.push(prefix);
    }
  }
  // The venv lives in the checkout: allowed as itself, not as an ancestor of it.
  return safeExisting(candidates, { ...input, protectedRoots: [] }, input.protectedRoots);
}

async function safeExisting(candidates: readonly string[], input: ToolchainPathsInput, holders: readonly string[] = []): Promise<string[]> {
  const result = new Set<string>();
  // Real directories bound as themselves: a path inside one is already visible.
  const realRoots = new Set<string>();
  for (const candidate of candidates) {
    if (!(await exists(candidate))) continue;
    const resolved = (await real(candidate)) ?? candidate;
    // A system path like /bin may be a link to /usr/bin: bind the link's own path (the name tools use) and its target.
    for (const path of resolved === candidate ? [candidate] : [candidate, resolved]) {
      if (!isSafeReadableRoot(path, input.home, input.protectedRoots)) continue;
      if (holders.some((holder) => holder === path || holder.startsWith(`${path}/`))) continue;
      result.add(path);
      if (path === resolved) realRoots.add(path);
    }
  }
  return [...result].filter((path) => ![...realRoots].some((root) => root !== path && path.startsWith(`${root === '/' ? '' : root}/`)));
}
