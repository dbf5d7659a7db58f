/**
 * The profile verification commands and the openai/ollama `run_command` run
 * under: reads are an allowlist (`readableRoots`), as for the contained agent.
 *
 * A real run showed why a denylist is not enough: library code the implementer
 * added followed the worktree's `.git` file (`gitdir: <checkout>/.git/worktrees/<id>`)
 * to the checkout and printed its `.env` into the test output. With an
 * allowlist the checkout is simply absent: the command sees its worktree, the
 * system and toolchain directories, the repository's dependency directories
 * and nothing else of the host. The worktree's `.git` file is masked, so git
 * inside finds no repository (the host runs git; test suites do not need it)
 * and cannot rewrite the file to point the host's later git calls elsewhere.
 *
 * Pure: the adapter finds which paths exist and where the toolchains are.
 */
import { defaultProfile, isWithin, normalizePath, SandboxProfileSchema, type DefaultProfileOptions, type SandboxProfile } from './sandbox-profile.js';

/**
 * System paths a shell, node, python, go, cargo and the agent CLIs need, read-only — the one list both sandboxes
 * (verification commands and agents) start from. Missing ones are dropped by the adapter.
 */
export const SYSTEM_READABLE_PATHS: readonly string[] = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc/alternatives',
  '/etc/ssl',
  '/etc/ca-certificates',
  '/etc/pki',
  '/etc/resolv.conf',
  '/etc/hosts',
  '/etc/passwd',
  '/etc/group',
  '/etc/nsswitch.conf',
  '/etc/localtime',
  '/etc/timezone',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/os-release',
  '/etc/protocols',
  '/etc/services',
  '/etc/mime.types',
];

/**
 * Toolchain variables passed into the sandbox, so a toolchain installed where
 * the user chose is found there (its directories are bound read-only).
 */
export const TOOLCHAIN_ENV: readonly string[] = [
  'CARGO_HOME',
  'RUSTUP_HOME',
  'RUSTUP_TOOLCHAIN',
  'GOROOT',
  'GOPATH',
  'GOMODCACHE',
  'GOFLAGS',
  'PYENV_ROOT',
  'PYENV_VERSION',
  'NVM_DIR',
  'VOLTA_HOME',
];

export interface VerificationProfileOptions extends DefaultProfileOptions {
  /**
   * Host paths shown read-only besides the worktree: the existing system paths, toolchain directories,
   * dependency sources. The adapter must not pass `/`, the home directory or an ancestor of it, nor
   * anything holding the checkout (see `isSafeReadableRoot`).
   */
  readable: readonly string[];
}

/**
 * True when `path` may be a readable root of a verification command: not the
 * root, not the home directory or one of its ancestors, and not a directory
 * holding one of `protectedRoots` (the checkout, the state root).
 *
 * @example
 * ```ts
 * isSafeReadableRoot('/root/.cargo', '/root', ['/src/app']); // true
 * isSafeReadableRoot('/root', '/root', []);                  // false
 * isSafeReadableRoot('/src', '/root', ['/src/app']);         // false
 * ```
 */
export function isSafeReadableRoot(path: string, home: string, protectedRoots: readonly string[]): boolean {
  const normalized = normalizePath(path);
  if (normalized === '/' || isWithin(home, normalized)) return false;
  return !protectedRoots.some((root) => isWithin(root, normalized) || isWithin(normalized, root));
}

/**
 * The verification profile: `defaultProfile` (worktree writable, no network,
 * scrubbed environment, private /tmp, credentials masked) plus an allowlist of
 * readable roots. Hidden paths outside everything visible are dropped (they
 * are absent anyway); the worktree's `.git` is always masked.
 *
 * @example
 * ```ts
 * const profile = verificationProfile({ worktree: '/state/wt/a1', home: '/home/me', readable: ['/usr', '/bin'] });
 * profile.readableRoots; // ['/usr', '/bin']
 * profile.hiddenPaths;   // ['/state/wt/a1/.git']
 * ```
 */
export function verificationProfile(options: VerificationProfileOptions): SandboxProfile {
  const base = defaultProfile(options);
  const readableRoots = [...new Set(options.readable.map(normalizePath))].filter((path) => !base.writableRoots.some((root) => root === path));
  const visible = [...base.writableRoots, ...readableRoots];
  const hidden = [...base.hiddenPaths, `${normalizePath(options.worktree)}/.git`].filter((path) => visible.some((root) => isWithin(path, root)));
  return SandboxProfileSchema.parse({
    ...base,
    readableRoots,
    hiddenPaths: [...new Set(hidden)],
    envAllowlist: [...base.envAllowlist, ...TOOLCHAIN_ENV],
  });
}

export interface DenylistVerificationOptions extends DefaultProfileOptions {
  /** The user's checkout, when the worktree is not the checkout itself. */
  checkout: string | null;
  /** The checkout's secret files and directories (`findSecretFiles`). */
  checkoutSecrets: readonly string[];
}

/**
 * The fallback where reads cannot be an allowlist (Seatbelt: `toSeatbeltProfile` refuses
 * `readableRoots`): the host stays readable, but besides the home's credentials and the other
 * worktrees, the checkout's secret files, its `.git/config` and its hooks are hidden, and the
 * worktree's `.git` file. Weaker than `verificationProfile` — a file that is secret but not named
 * like one stays readable — and documented as such.
 *
 * @example
 * ```ts
 * denylistVerificationProfile({ worktree: '/state/wt/a1', home: '/Users/me', checkout: '/Users/me/app',
 *   checkoutSecrets: ['/Users/me/app/.env'] }).hiddenPaths; // […, '/Users/me/app/.env', '/Users/me/app/.git/config', …]
 * ```
 */
export function denylistVerificationProfile(options: DenylistVerificationOptions): SandboxProfile {
  const checkout = options.checkout ? normalizePath(options.checkout) : null;
  const hiddenExtra = [
    ...(options.hiddenExtra ?? []),
    ...options.checkoutSecrets,
    ...(checkout ? [`${checkout}/.git/config`, `${checkout}/.git/hooks`] : []),
    `${normalizePath(options.worktree)}/.git`,
  ];
  const base = defaultProfile({ ...options, hiddenExtra });
  return SandboxProfileSchema.parse({ ...base, envAllowlist: [...base.envAllowlist, ...TOOLCHAIN_ENV] });
}
