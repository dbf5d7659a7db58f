/**
 * SandboxProfile → bubblewrap argv, for Debian's bubblewrap 0.8 (only options
 * that exist there).
 *
 * Mount order matters: bwrap applies mounts in argument order and a later
 * mount covers an earlier one. We start from `--ro-bind / /` (everything
 * read-only), then apply the private /tmp, writable binds and hidden paths
 * sorted by depth, parents first. So a hidden directory inside a writable
 * root stays hidden (`--write ~` still cannot read `~/.ssh`), and a worktree
 * inside a hidden directory (`.loop/worktrees/<this one>` under hidden
 * `.loop/worktrees`) is still writable. At equal depth, hiding wins. Hidden
 * directories are remounted read-only after every mount is in place.
 * With `readableRoots`, the root is bwrap's empty tmpfs and only those paths
 * are bound in, read-only, sorted with the other mounts.
 */
import { CapabilityUnsupportedError } from '../errors.js';
import { normalizePath, type SandboxProfile } from './sandbox-profile.js';

export type HostPathKind = 'directory' | 'file' | 'missing';

/** What the adapter knows about the host; the builder cannot look. */
export interface BwrapHostFacts {
  /** Running as uid 0: add `--cap-drop ALL` (bwrap keeps root's capabilities otherwise). */
  isRoot: boolean;
  /**
   * Kinds of the hidden paths. Directories are covered by an empty read-only
   * tmpfs, files by `/dev/null`, missing paths are skipped (bwrap cannot
   * create a mount point on the read-only root). Unknown paths are treated as
   * directories.
   */
  pathKinds?: Readonly<Record<string, HostPathKind>>;
  /** File descriptor carrying `denyInetSeccompProgram` for network "none". */
  seccompFd?: number;
}

export interface SandboxCommand {
  /** Program and arguments, e.g. `['sh', '-c', 'npm test']`. */
  argv: readonly string[];
  /** Working directory inside the sandbox (normally the worktree). */
  cwd: string;
  /** The complete environment the command gets (already scrubbed); nothing else passes. */
  env: Readonly<Record<string, string>>;
}

type Mount = { path: string; order: number; args: string[] };

function depth(path: string): number {
  return path === '/' ? 0 : path.split('/').length - 1;
}

/**
 * Builds the bwrap argument vector (without the leading `bwrap`).
 *
 * @throws CapabilityUnsupportedError for network "allowlist" (bwrap has no per-domain filter).
 * @example
 * ```ts
 * const args = toBwrapArgs(defaultProfile({ worktree: '/w', home: '/home/me' }),
 *   { argv: ['sh', '-c', 'npm test'], cwd: '/w', env: { PATH: '/usr/bin' } },
 *   { isRoot: false });
 * // ['--die-with-parent', '--new-session', '--unshare-all', '--ro-bind', '/', '/', …, '--', 'sh', '-c', 'npm test']
 * ```
 */
export function toBwrapArgs(profile: SandboxProfile, command: SandboxCommand, host: BwrapHostFacts = { isRoot: false }): string[] {
  if (profile.network === 'allowlist') {
    throw new CapabilityUnsupportedError('bubblewrap sandbox', 'network allowlist');
  }
  if (command.argv.length === 0) throw new TypeError('toBwrapArgs: command.argv is empty');

  const args: string[] = ['--die-with-parent', '--new-session', '--unshare-all'];
  if (host.isRoot) args.push('--cap-drop', 'ALL');
  if (!profile.readableRoots) args.push('--ro-bind', '/', '/');
  args.push('--dev', '/dev', '--proc', '/proc');

  const mounts: Mount[] = [];
  // Readable roots sort before writable ones at equal depth: a path that is both stays writable.
  for (const root of profile.readableRoots ?? []) {
    const path = normalizePath(root);
    mounts.push({ path, order: 0.5, args: ['--ro-bind', path, path] });
  }
  if (profile.privateTmp) mounts.push({ path: '/tmp', order: 0, args: ['--tmpfs', '/tmp'] });
  for (const root of profile.writableRoots) {
    const path = normalizePath(root);
    mounts.push({ path, order: 1, args: ['--bind', path, path] });
  }
  for (const bind of profile.readOnlyBinds ?? []) {
    const path = normalizePath(bind.target);
    mounts.push({ path, order: 3, args: ['--ro-bind', normalizePath(bind.source), path] });
  }
  for (const hidden of profile.hiddenPaths) {
    const path = normalizePath(hidden);
    const kind = host.pathKinds?.[path] ?? 'directory';
    if (kind === 'missing') continue;
    mounts.push({
      path,
      order: 2,
      args: kind === 'file' ? ['--ro-bind', '/dev/null', path] : ['--tmpfs', path],
    });
  }
  mounts.sort((a, b) => depth(a.path) - depth(b.path) || a.order - b.order || a.path.localeCompare(b.path));
  for (const mount of mounts) args.push(...mount.args);
  // Hidden tmpfs become read-only last: a writable root inside one needs its
  // mount point created first. --remount-ro is not recursive, so the bind
  // on top stays writable.
  for (const mount of mounts) {
    if (mount.order === 2 && mount.args[0] === '--tmpfs') args.push('--remount-ro', mount.path);
  }

  args.push('--chdir', command.cwd, '--clearenv');
  for (const [name, value] of Object.entries(command.env).sort(([a], [b]) => a.localeCompare(b))) {
    args.push('--setenv', name, value);
  }
  if (profile.network === 'none' && host.seccompFd !== undefined) {
    args.push('--seccomp', String(host.seccompFd));
  }
  args.push('--', ...command.argv);
  return args;
}
